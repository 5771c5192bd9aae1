import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../cli/run-cli-in-process.js";
import { waitUntil } from "../tools/wait-until.js";
import { EventReader, postJson, startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
let reader: EventReader | undefined;
afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await web?.close();
  web = undefined;
});

/** A secret of the config (an MCP server's `--api-key` option), and secrets only their shape gives away. */
const configured = "configured-secret-value-123";
const shaped = [
  "sk-proj-abcdefghijklmnopqrstuv",
  "ghp_abcdefghijklmnopqrstuvwxyz0123",
  "xoxb-1234567890-abcdefghij",
  "AIzaSyA1234567890abcdefghijklmnopqrstu",
  "abcdefghijklmnop1234", // after `Bearer `
];
const argumentsJson = JSON.stringify({
  command: "curl",
  args: ["-H", `Authorization: Bearer ${shaped[4]}`, "--data", `${configured} ${shaped.slice(0, 4).join(" ")}`],
});

async function cli(args: string[], env: Record<string, string>) {
  return runCliInProcess(args, { env: { LOG_LEVEL: "silent", ...env } });
}

function expectRedacted(text: string): void {
  expect(text).not.toContain(configured);
  for (const secret of shaped) expect(text).not.toContain(secret);
  expect(text).toContain("[redacted]");
}

describe("tool arguments with secrets in the operator view and the approvals export", () => {
  it("are redacted as in the logs; roundtable approvals --json --raw prints the stored bytes", async () => {
    web = await startWebService({
      extraConfig: [
        "tools:",
        `  mcpServers: { vault: { command: /nonexistent/vault-mcp, args: [--api-key, ${configured}] } }`,
      ],
    });
    web.fake.script({
      type: "reply",
      toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: [argumentsJson] }],
    });
    const auth = { authorization: `Bearer ${web.token}` };
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, auth);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "fetch it", clientId: "client-0001" },
      auth,
    );
    await waitUntil("the approval is asked for", async () => {
      const snapshot = (await (await fetch(`${web?.origin}/operator?format=json`, { headers: auth })).json()) as {
        pendingApprovals: unknown[];
      };
      return snapshot.pendingApprovals.length === 1;
    });

    // The MCP server's failed spawn was logged without its command line.
    expect(web.logs.some((line) => line.msg.includes("MCP server vault failed to start"))).toBe(true);
    expect(JSON.stringify(web.logs)).not.toContain(configured);

    const json = await (await fetch(`${web.origin}/operator?format=json`, { headers: auth })).text();
    expectRedacted(json);
    const page = await (await fetch(`${web.origin}/operator`, { headers: auth })).text();
    expectRedacted(page);
    expect(page).toContain("curl");

    const env = {
      DATABASE_URL: `file:${path.join(web.directory, "roundtable.db")}`,
      OPENAI_BASE_URL: web.fake.baseUrl,
    };
    const config = path.join(web.directory, "roundtable.yaml");
    const lines = await cli(["approvals", "--config", config], env);
    expect(lines.code).toBe(0);
    expect(lines.stdout).toContain("shell_cmd");
    expectRedacted(lines.stdout);
    const exported = await cli(["approvals", "--json", "--config", config], env);
    expectRedacted(exported.stdout);
    expect(JSON.parse(exported.stdout)).toHaveLength(1);
    const raw = await cli(["approvals", "--json", "--raw", "--config", config], env);
    expect((JSON.parse(raw.stdout) as { argumentsJson: string }[])[0]?.argumentsJson).toBe(argumentsJson);
  });

  it("the generated web token is redacted in the operator view like a configured one", async () => {
    web = await startWebService();
    web.fake.script({ type: "reply", text: ["noted"] });
    const auth = { authorization: `Bearer ${web.token}` };
    expect(web.token.length).toBeGreaterThanOrEqual(16);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: `the token is ${web.token}`, clientId: "client-0002" },
      auth,
    );
    await waitUntil("the message is in the operator view", async () =>
      (await (await fetch(`${web?.origin}/operator?format=json`, { headers: auth })).text()).includes("the token is"),
    );
    const json = await (await fetch(`${web.origin}/operator?format=json`, { headers: auth })).text();
    expect(json).not.toContain(web.token);
    expect(json).toContain("the token is [redacted]");
    const page = await (await fetch(`${web.origin}/operator`, { headers: auth })).text();
    expect(page).not.toContain(web.token);
  });
});
