import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalsConfig } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, type HarnessOptions, temporaryDatabaseUrl } from "../world/harness.js";
import { runCliInProcess } from "./run-cli-in-process.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function cli(args: string[], databaseUrl: string) {
  return runCliInProcess(args, { env: { DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" } });
}

function echoHi() {
  return new ScriptedProvider((request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "done" }
      : { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hi"] } }] },
  );
}

function options(databaseUrl: string): HarnessOptions {
  return {
    agents: [{ name: "alice", provider: echoHi(), tools: ["shell_cmd"] }],
    platform: "telegram",
    databaseUrl,
    keepDatabase: true,
    world: {
      defaultAgent: "alice",
      approvers: { telegram: ["requester", "boss"] },
      approvals: { allowAlways: true } as unknown as ApprovalsConfig,
    },
  };
}

describe("roundtable rules and roundtable approvals with stored rules", () => {
  it("lists the rule (table and JSON), approvals shows the card that made it and the call it allowed, revoke ends it and a card comes again", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    harness = await createHarness(options(databaseUrl));
    await harness.say("run it", { user: "ana", id: "m1" });
    await harness.idle();
    const [card] = harness.channel.cards();
    const approvalId = card?.card.approvalId ?? "";
    expect(card?.card.choices).toEqual(["once", "session", "deny", "always"]);
    expect((await harness.click(approvalId, "always", { user: "ana" })).status).toBe("not-allowed");
    expect((await harness.click(approvalId, "always", { user: "boss" })).status).toBe("decided");
    await harness.idle();
    await harness.say("run it again", { user: "ana", id: "m2" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(1);
    await harness.close();
    harness = undefined;

    const json = await cli(["rules", "--json"], databaseUrl);
    expect(json.code).toBe(0);
    const rules = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rules).toEqual([
      expect.objectContaining({
        world: "main",
        agent: "alice",
        tool: "shell_cmd",
        argumentsJson: '{"command":"echo","args":["hi"]}',
        author: { id: "boss", name: "boss", platform: "telegram" },
        sourceApproval: approvalId,
        state: "active",
        useCount: 1,
      }),
    ]);
    const id = String(rules[0]?.id);
    const table = await cli(["rules", "--world", "main"], databaseUrl);
    expect(table.stdout).toMatch(
      new RegExp(
        `${id} +main +alice +shell_cmd +\\{"command":"echo","args":\\["hi"\\]\\} +boss \\(telegram\\) .* active +1\\n$`,
      ),
    );
    expect((await cli(["rules", "--world", "other"], databaseUrl)).stdout).toBe("No stored rules in world other.\n");

    const approvals = JSON.parse((await cli(["approvals", "--json"], databaseUrl)).stdout) as Record<string, unknown>[];
    expect(approvals).toEqual([
      expect.objectContaining({ id: approvalId, state: "approved", choice: "always", createdRule: id }),
      expect.objectContaining({ state: "approved", allowedByRule: id, resultKind: "ok", agent: "alice" }),
    ]);
    expect((await cli(["approvals"], databaseUrl)).stdout).toContain(`allowed by rule ${id} (no card)`);

    const revoked = await cli(["rules", "revoke", id], databaseUrl);
    expect(revoked).toMatchObject({
      code: 0,
      stdout: `Rule ${id} revoked: alice's shell_cmd with these arguments asks again (world main).\n`,
    });
    expect((await cli(["rules", "revoke", id], databaseUrl)).stdout).toMatch(
      new RegExp(`^Rule ${id} was already revoked by cli at `),
    );
    expect((await cli(["rules", "revoke", "nope"], databaseUrl)).code).toBe(1);
    expect((await cli(["rules", "delete", id], databaseUrl)).code).toBe(2);
    expect(JSON.parse((await cli(["rules", "--json"], databaseUrl)).stdout)[0]).toMatchObject({
      state: "revoked",
      revokedBy: "cli",
    });

    // The same call after the revoke: a card again.
    harness = await createHarness(options(databaseUrl));
    await harness.say("run it once more", { user: "ana", id: "m3" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(1);
  });
});
