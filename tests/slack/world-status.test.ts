/**
 * Status while agents work, on Slack: in an assistant thread (a thread of the app's DM)
 * `assistant.threads.setStatus` says "alice is thinking…" from the model call until the first
 * token and "alice is running shell_cmd…" during a tool run, and is cleared after each; in a
 * channel nothing is sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("status in Slack assistant threads while an agent works", () => {
  it("says what the agent does and clears it, in the thread of the app's DM", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "Listed." }
        : { toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] },
    );
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      world: { defaultAgent: "alice" },
    });
    const root = await t.fake.userMessage({ channel: "D0ANA", user: ana, text: "hello", channelType: "im" });
    await t.settle();
    const before = t.fake.callsTo("assistant.threads.setStatus").length;
    await t.fake.userMessage({
      channel: "D0ANA",
      user: ana,
      text: "list the files",
      channelType: "im",
      threadTs: root.message.ts,
    });
    await t.settle();
    const statuses = t.fake
      .callsTo("assistant.threads.setStatus")
      .slice(before)
      .map((call) => call.params);
    expect(statuses.map((params) => params.status)).toEqual([
      "alice is thinking…",
      "",
      "alice is running shell_cmd…",
      "",
      "alice is thinking…",
      "",
    ]);
    expect(statuses.every((params) => params.channel_id === "D0ANA" && params.thread_ts === root.message.ts)).toBe(
      true,
    );
    expect(t.fake.messagesIn("D0ANA").at(-1)?.text).toBe("Listed.");
  });

  it("sends nothing in a channel, which has no assistant status", async () => {
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: new ScriptedProvider([{ text: "Hi." }]) }],
      world: { defaultAgent: "alice" },
    });
    const asked = await t.say(ana, "hi");
    expect(t.replies(asked.ts).map((message) => message.text)).toEqual(["Hi."]);
    expect(t.fake.callsTo("assistant.threads.setStatus")).toEqual([]);
  });
});
