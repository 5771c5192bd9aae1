/**
 * Tool calls as task cards inside the thread with `stream: native` (#45): each call is a Slack
 * stream of `task_update` chunks that goes in_progress → complete (a tool that runs), → error (a
 * tool that fails), or pending "waiting for approval" first (a call behind a card), through
 * `chat.startStream` / `appendStream` / `stopStream`. Where the workspace refuses chunks the
 * thread shows what it showed before (status, cards, the answer), and the adapter stops asking.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, channel, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A model that calls shell_cmd with each command in turn, then answers "Done.". */
function runs(...commands: string[]): ScriptedProvider {
  return new ScriptedProvider((request) => {
    const results = request.messages.filter((message) => message.role === "tool").length;
    const command = commands[results];
    return command === undefined ? { text: "Done." } : { toolCalls: [{ name: "shell_cmd", args: { command } }] };
  });
}

/** The task cards of a thread: each one's chunks as [status, details]. */
function taskCards(messages: SlackStoredMessage[]): [string, string | undefined][][] {
  return messages
    .filter((message) => (message.chunks ?? []).some((chunk) => chunk.type === "task_update"))
    .map((message) =>
      (message.chunks ?? []).map((chunk) => [String(chunk.status), chunk.details as string | undefined]),
    );
}

async function world(provider: ScriptedProvider, approval: "never" | "required"): Promise<WorldSlack> {
  return worldOnSlack({
    mode: "http",
    agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
    tools: { approval: { shell_cmd: approval } },
    world: { defaultAgent: "alice" },
    agentConfig: { alice: { displayName: "Alice" } },
    adapter: { stream: "native" },
  });
}

describe("tool calls as task chunks (stream: native)", () => {
  it("a tool that runs and one that fails: in_progress → complete, in_progress → error", async () => {
    t = await world(runs("ls", "no-such-command-here"), "never");
    const root = await t.say(ana, "check twice");
    const thread = t.fake.messagesIn(channel, root.ts);
    expect(taskCards(thread)).toEqual([
      [
        ["in_progress", undefined],
        ["complete", undefined],
      ],
      [
        ["in_progress", undefined],
        ["error", "failed"],
      ],
    ]);
    const cards = thread.filter((message) => message.chunks !== undefined);
    expect(cards.every((card) => card.streaming === false)).toBe(true);
    expect(cards[0]?.chunks?.[0]).toMatchObject({ type: "task_update", title: "Alice: shell_cmd" });
    // The same card (task id) from start to end, one per call.
    expect(new Set(cards[0]?.chunks?.map((chunk) => chunk.id)).size).toBe(1);
    expect(cards[0]?.chunks?.[0]?.id).not.toBe(cards[1]?.chunks?.[0]?.id);
    expect(t.replies(root.ts).at(-1)?.text).toBe("**Alice:** Done.");
  });

  it("a call behind an approval card waits as pending, then runs in the same task card", async () => {
    t = await world(runs("ls"), "required");
    const root = await t.say(ana, "run it");
    expect(taskCards(t.fake.messagesIn(channel, root.ts))).toEqual([[["pending", "waiting for approval"]]]);
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    await t.press(ana, card, /Approve once/);
    expect(taskCards(t.fake.messagesIn(channel, root.ts))).toEqual([
      [
        ["pending", "waiting for approval"],
        ["in_progress", undefined],
        ["complete", undefined],
      ],
    ]);
    expect(t.replies(root.ts).at(-1)?.text).toBe("**Alice:** Done.");
  });

  it("a workspace that refuses chunks: the answer as before, asked once, never again", async () => {
    t = await world(runs("ls", "pwd"), "never");
    t.fake.refuseTaskChunks = true;
    const root = await t.say(ana, "run both");
    expect(taskCards(t.fake.messagesIn(channel, root.ts))).toEqual([]);
    const withChunks = t.fake.callsTo("chat.startStream").filter((call) => call.params.chunks !== undefined);
    expect(withChunks.map((call) => call.ok)).toEqual([false]);
    expect(t.replies(root.ts).at(-1)?.text).toBe("**Alice:** Done.");
    expect(t.lines.some((line) => String(line.msg).startsWith("slack refused task chunks"))).toBe(true);
  });

  it("a workspace that refuses the stream method itself: the answer is posted as a message, once", async () => {
    t = await world(new ScriptedProvider(() => ({ text: "Hello there." })), "never");
    t.fake.failNext("chat.startStream", { status: 200, error: "unknown_method" }, 50);
    const root = await t.say(ana, "stream please");
    expect(t.fake.callsTo("chat.startStream").every((call) => !call.ok)).toBe(true);
    expect(t.replies(root.ts).map((reply) => [reply.text, reply.username])).toEqual([["Hello there.", "Alice"]]);
    expect(t.fake.callsTo("chat.postMessage").filter((call) => call.ok)).toHaveLength(1);
  });
});
