import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/roundtable-error.js";
import { runCliInProcess } from "../cli/run-cli-in-process.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-quorum-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const env = {
  OPENAI_API_KEY: "sk-test",
  TELEGRAM_BOT_TOKEN: "1:t",
  SLACK_BOT_TOKEN: "xoxb-1",
  SLACK_SIGNING_SECRET: "secret",
};

function world(approvers: string, approvals: string): string {
  return `agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
channels:
  telegram: { chats: { "-100": ops } }
  slack: { chats: { C1: ops } }
worlds:
  - name: ops
    agents: [alice]
    approvers: ${approvers}
    approvals: ${approvals}
`;
}

async function write(yaml: string): Promise<string> {
  const file = path.join(directory, "roundtable.yaml");
  await writeFile(file, yaml);
  return file;
}

async function refusal(yaml: string): Promise<string> {
  await write(yaml);
  try {
    await loadConfig({ env, cwd: directory });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected the config to be refused");
}

describe("approvals.quorum, remind and escalate in the config", () => {
  it("loads them into the world's settings", async () => {
    await write(
      world(
        `{ telegram: ["1", "2"], slack: [U1, U2] }`,
        `{ quorum: { shell_cmd: 2 }, remind: 10m, escalate: { after: 20m, to: { slack: [U999], telegram: [333] } } }`,
      ),
    );
    const { config } = await loadConfig({ env, cwd: directory });
    expect(config.worlds[0]?.approvals).toMatchObject({
      quorum: { shell_cmd: 2 },
      remind: 600_000,
      escalate: { after: 1_200_000, to: { slack: ["U999"], telegram: ["333"] } },
    });
  });

  it("refuses a quorum for an unknown tool, a count under 1, a bad duration and an unknown platform, naming the path", async () => {
    expect(await refusal(world(`{}`, `{ quorum: { nope: 2 } }`))).toContain("worlds[0].approvals.quorum.nope");
    expect(await refusal(world(`{}`, `{ quorum: { shell_cmd: 0 } }`))).toContain(
      "worlds[0].approvals.quorum.shell_cmd",
    );
    expect(await refusal(world(`{}`, `{ remind: soon }`))).toContain("worlds[0].approvals.remind");
    expect(await refusal(world(`{}`, `{ escalate: { after: 1m, to: { irc: [x] } } }`))).toContain(
      "worlds[0].approvals.escalate.to.irc",
    );
    expect(await refusal(world(`{}`, `{ escalate: { to: { slack: [U1] } } }`))).toContain(
      "worlds[0].approvals.escalate.after",
    );
  });

  it("check warns for a quorum the listed approvers cannot meet on a platform of the world's chats (requester never counts)", async () => {
    const file = await write(world(`{ telegram: [requester, "1"], slack: [U1, U2] }`, `{ quorum: { shell_cmd: 2 } }`));
    const check = await runCliInProcess(["check", "--offline", "--config", file], { env });
    const output = check.stdout + check.stderr;
    expect(output).toContain(
      "shell_cmd needs 2 approvers but world ops lists 1 on telegram (the requester never counts)",
    );
    expect(output).not.toContain("lists 2 on slack");
    // Escalation adds people who may decide: then it can be met.
    const met = await write(
      world(
        `{ telegram: [requester, "1"], slack: [U1, U2] }`,
        `{ quorum: { shell_cmd: 2 }, escalate: { after: 5m, to: { telegram: ["2"] } } }`,
      ),
    );
    const fine = await runCliInProcess(["check", "--offline", "--config", met], { env });
    expect(fine.stdout + fine.stderr).not.toContain("needs 2 approvers");
  });

  it("the worked example of docs/approvals.md is a valid config", async () => {
    const doc = await readFile(path.join(import.meta.dirname, "..", "..", "docs", "approvals.md"), "utf8");
    const examples = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
    const quorumExample = examples.find((example) => example.includes("quorum:"));
    expect(quorumExample).toBeDefined();
    await write(`agents:\n  - { name: alice, provider: openai, model: gpt-4.1 }\n${quorumExample}`);
    const { config } = await loadConfig({ env, cwd: directory });
    expect(Object.keys(config.worlds[0]?.approvals.quorum ?? {})).not.toHaveLength(0);
  });
});
