import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../cli/run-cli-in-process.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Runs a CLI command in this process against a database; resolves with its exit code and output. */
async function cli(args: string[], databaseUrl: string) {
  return runCliInProcess(args, { env: { DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" } });
}

const texts = (h: Harness) => h.channel.messages().map((message) => message.text);

describe("limits and spending", () => {
  it("the 21st message in a minute from one person gets the notice and no model call", async () => {
    const alice = new ScriptedProvider(() => ({ text: "ok" }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      platform: "telegram",
      world: { defaultAgent: "alice" },
    });
    for (let index = 1; index <= 22; index++) await harness.say(`message ${index}`, { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(20);
    const notices = texts(harness).filter((text) => text !== "ok");
    expect(notices).toEqual([
      expect.stringMatching(
        /^ana: you reached this world's limit of 20 messages a minute \(messagesPerMinute\); the agents answer your messages again from \d\d:\d\d:\d\d UTC\.$/,
      ),
    ]);
    expect(harness.logs()).toContain("message rate limit reached; no turn");
    // Someone else is not held back by ana's rate.
    await harness.say("hello", { user: "bob" });
    await harness.idle();
    expect(alice.requests).toHaveLength(21);
  });

  it("a world past costPerDay answers with the notice until the next UTC day; usage is stored and printed", async () => {
    let now = Date.parse("2026-11-24T22:30:00Z");
    const alice = new ScriptedProvider(() => ({ text: "answer", usage: { inputTokens: 10, outputTokens: 15 } }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      platform: "telegram",
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, costPerDay: 1 } },
      // 10 input and 15 output tokens a call: $1.51 at these prices (the estimated input of the
      // first call, a few hundred tokens at most, fits the day's $1).
      agentConfig: { alice: { price: { input: 1_000, output: 100_000 } } },
      worldClock: () => new Date(now),
    });
    await harness.say("first", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(1);

    await harness.say("second", { user: "ana" });
    await harness.say("third", { user: "bob" });
    await harness.idle();
    expect(alice.requests).toHaveLength(1);
    expect(texts(harness)).toEqual([
      // The default alerts (80 and 100 percent): the highest crossed, once.
      "Budget alert: this world's daily budget is 100% used (costPerDay: 1.51 USD of 1.00 USD); it resets at 00:00 UTC (in 90 minutes).",
      "answer",
      "This world reached its daily budget (costPerDay: $1.00 a day, $1.51 used); the agents answer again after 00:00 UTC (in 90 minutes).",
    ]);

    now = Date.parse("2026-11-25T00:00:05Z");
    await harness.say("a new day", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(2);
    expect(texts(harness).at(-1)).toBe("answer");
    expect(await harness.store.listUsage({ world: "main" })).toEqual([
      expect.objectContaining({
        day: "2026-11-24",
        agent: "alice",
        calls: 1,
        estimatedCalls: 0,
        inputTokens: 10,
        outputTokens: 15,
        costUsd: expect.closeTo(1.51, 9),
      }),
      expect.objectContaining({ day: "2026-11-25", agent: "alice", calls: 1, costUsd: expect.closeTo(1.51, 9) }),
    ]);
    const databaseUrl = harness.databaseUrl;
    await harness.close();
    harness = undefined;

    const printed = await cli(["usage", "--days", "3650"], databaseUrl);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(
      /DAY\s+WORLD\s+AGENT\s+CALLS\s+ESTIMATED CALLS\s+INPUT TOKENS\s+OUTPUT TOKENS\s+COST USD\n/,
    );
    expect(printed.stdout).toMatch(/2026-11-24\s+main\s+alice\s+1\s+0\s+10\s+15\s+\$1\.5100\n/);
    expect(printed.stdout).toMatch(/total\s+2\s+0\s+20\s+30\s+\$3\.0200/);
    expect(printed.stdout).not.toContain("estimated");
    expect((await cli(["usage", "--world", "other", "--days", "3650"], databaseUrl)).stdout).toMatch(
      /^No model usage recorded in world other since/,
    );
    const bad = await cli(["usage", "--days", "zero"], databaseUrl);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--days: expected a whole number of days");
  });

  it("a budget reached in the middle of a turn stops it before the next model call; approvals stay decidable", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : {
            text: "",
            toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hi"] } }],
            usage: { inputTokens: 10, outputTokens: 5_000 },
          },
    );
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, tokensPerDay: 5_000 } },
    });
    await harness.say("run it", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    expect((await harness.click(card?.card.approvalId ?? "", "once", { user: "ana" })).status).toBe("decided");
    await harness.idle();
    expect(alice.requests).toHaveLength(1);
    expect(texts(harness).at(-1)).toMatch(
      /^This world reached its daily budget \(tokensPerDay: 5000 tokens a day, 5010 used\)/,
    );
    const databaseUrl = harness.databaseUrl;
    await harness.close();
    harness = undefined;

    const json = await cli(["approvals", "--json"], databaseUrl);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed).toEqual([
      expect.objectContaining({
        chat: "telegram::chat-1:",
        agent: "alice",
        tool: "shell_cmd",
        argumentsJson: '{"command":"echo","args":["hi"]}',
        requestedBy: { id: "ana", name: "ana" },
        state: "approved",
        choice: "once",
        decidedBy: { id: "ana", name: "ana" },
        resultKind: "ok",
      }),
    ]);
    expect(typeof listed[0]?.waitedSeconds).toBe("number");
    const lines = await cli(["approvals", "--since", "1h", "--world", "main"], databaseUrl);
    expect(lines.stdout).toMatch(
      /telegram::chat-1: {2}alice {2}shell_cmd \{"command":"echo","args":\["hi"\]\} {2}asked by ana {2}approved \(once\) by ana at .* {2}result ok\n$/,
    );
    expect((await cli(["approvals", "--since", "soon"], databaseUrl)).code).toBe(2);
  });
});
