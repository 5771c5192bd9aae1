import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const echo = (word: string) => ({ name: "shell_cmd", args: { command: "echo", args: [word] } });
const never = { approval: { shell_cmd: "never" } };

async function endReasons(): Promise<(string | undefined)[]> {
  return (await harness?.store.listTurns({}))?.map((turn) => turn.endReason) ?? [];
}

describe("limits of one turn", () => {
  it("max steps: the turn ends with a message naming the limit", async () => {
    let count = 0;
    const alice = new ScriptedProvider(() => ({ toolCalls: [echo(`step-${++count}`)] }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"], limits: { maxSteps: 3 } }],
      tools: never,
    });
    await harness.say("@alice loop");
    await harness.idle();
    expect(alice.requests).toHaveLength(3);
    expect(harness.channel.messages().at(-1)?.text).toBe(
      "alice stopped: reached the limit of 3 model calls in one turn.",
    );
    expect(await endReasons()).toEqual(["max-steps"]);
  });

  it("max tool calls per step: every call gets a synthetic result and the turn ends saying why", async () => {
    const alice = new ScriptedProvider([{ toolCalls: [echo("a"), echo("b"), echo("c")] }]);
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"], limits: { maxToolCallsPerStep: 2 } }],
      tools: never,
    });
    await harness.say("@alice many");
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toContain("the limit is 2");
    const calls = await harness.store.listToolCalls({});
    const results = await harness.store.listToolResults(calls.map((call) => call.id));
    expect(results.map((result) => result.kind)).toEqual(["skipped", "skipped", "skipped"]);
    expect(await endReasons()).toEqual(["max-tool-calls"]);
  });

  it("repeat guard: the same tool with the same arguments again is blocked and the turn ends", async () => {
    const alice = new ScriptedProvider(() => ({ toolCalls: [echo("same")] }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"], limits: { maxRepeats: 1, maxSteps: 10 } }],
      tools: never,
    });
    await harness.say("@alice again and again");
    await harness.idle();
    expect(alice.requests).toHaveLength(2);
    expect(harness.channel.messages().at(-1)?.text).toMatch(/^alice stopped: .*same tool with the same arguments/);
    expect(await endReasons()).toEqual(["repeat-guard"]);
  });

  it("deadline: a model call that outlives the turn's time ends the turn saying so", async () => {
    const alice = new ScriptedProvider([{ text: "late", hold: new Promise((resolve) => setTimeout(resolve, 5_000)) }]);
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, limits: { deadline: "1s" } }],
    });
    await harness.say("@alice slow");
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toBe("alice stopped: reached the turn's time limit.");
    expect(await endReasons()).toEqual(["deadline"]);
  });

  it("an unknown tool name and a tool not offered to the agent get invalid results", async () => {
    const alice = new ScriptedProvider((request) => {
      const results = request.messages.filter((message) => message.role === "tool");
      if (results.length > 0) return { text: results.map((message) => message.text).join(" | ") };
      return { toolCalls: [{ name: "rm_everything", args: {} }] };
    });
    harness = await createHarness({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await harness.say("@alice go");
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toBe("invalid: there is no tool named rm_everything for alice");
  });

  it("a shell_cmd cwd outside the world's directory is invalid at once, no card", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: last.text };
      return { toolCalls: [{ name: "shell_cmd", args: { command: "ls", cwd: "../.." } }] };
    });
    harness = await createHarness({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await harness.say("@alice look around");
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(0);
    expect(harness.channel.messages().at(-1)?.text).toBe('invalid: cwd "../.." is outside the working directory');
  });

  it("a blocked call (deny rule) gets a blocked result, no card", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: last.text };
      return { toolCalls: [{ name: "shell_cmd", args: { command: "rm", args: ["-rf", "/"] } }] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { rules: [{ tool: "shell_cmd", match: { command: "^rm$" }, action: "deny" }] },
    });
    await harness.say("@alice clean up");
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(0);
    expect(harness.channel.messages().at(-1)?.text).toMatch(/^blocked: /);
  });

  it("an oversized message is kept and answered with a notice, not routed", async () => {
    const alice = new ScriptedProvider(() => ({ text: "hi" }));
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }] });
    const result = await harness.say(`@alice ${"x".repeat(40_000)}`);
    await harness.idle();
    expect(result).toEqual({ status: "ignored", reason: "message too long" });
    expect(alice.requests).toHaveLength(0);
    expect(harness.channel.messages()[0]?.text).toMatch(/too long/);
    const stored = await harness.store.listMessages("console:main:ana:");
    expect(stored[0]?.text.length).toBeGreaterThan(40_000);
  });
});
