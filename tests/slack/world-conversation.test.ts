import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, channel, modes, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const longAnswer = `Here is the plan:\n\n${Array.from({ length: 6 }, (_, index) => `${index + 1}. step **${index + 1}** & <check>`).join("\n")}`;

describe.each(modes)("a Slack channel through the world engine (%s)", (mode) => {
  it("a message in a bound channel gets the agent's answer streamed into its thread, under the agent's name and icon", async () => {
    const alice = new ScriptedProvider(() => ({ text: longAnswer }));
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      // The identity comes from the agent's config, through the world, to the Slack post.
      agentConfig: { alice: { displayName: "Alice (release)", avatarUrl: "https://example.org/alice.png" } },
    });
    const root = await t.say(ana, "what is the plan?");

    const [answer, ...rest] = t.replies(root.ts);
    expect(rest).toHaveLength(0);
    expect(answer).toMatchObject({
      thread_ts: root.ts,
      username: "Alice (release)",
      icon_url: "https://example.org/alice.png",
      text: "Here is the plan:\n\n1. step *1* &amp; &lt;check&gt;\n2. step *2* &amp; &lt;check&gt;\n3. step *3* &amp; &lt;check&gt;\n4. step *4* &amp; &lt;check&gt;\n5. step *5* &amp; &lt;check&gt;\n6. step *6* &amp; &lt;check&gt;",
    });
    // Streamed: first posted while the model wrote, then edited to the whole answer.
    expect(answer?.updateCount).toBeGreaterThan(0);
    expect(answer?.history[0]?.length).toBeLessThan(answer?.text.length ?? 0);
    // The person's text reached the model as theirs, in the thread's own chat.
    expect(alice.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: what is the plan?" });
    const stored = await t.world.store.listMessages(threadKey(root.ts));
    expect(stored.map((message) => message.author.kind)).toEqual(["human", "agent"]);
    // Its own posts came back as events and started nothing.
    expect(alice.requests).toHaveLength(1);
    expect(t.fake.messagesIn(channel)).toHaveLength(1);
  });
  it("the first turn in a thread sees the thread's root, even one the service never got", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Rolling back." }));
    t = await worldOnSlack({ mode, agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    // A message from before the app was in the channel: Slack never delivered it.
    const old = t.fake.messages.add({ channel, user: ana, text: "deploy 42 broke checkout" });
    await t.say(ana, "@alice what now?", { threadTs: old.ts });
    expect(t.replies(old.ts).map((reply) => reply.text)).toEqual(["Rolling back."]);
    const seen = alice.requests[0]?.messages.map((message) => message.text) ?? [];
    expect(seen.slice(-2)).toEqual(["Ana: deploy 42 broke checkout", "Ana: @alice what now?"]);
    expect(t.fake.callsTo("conversations.replies")).toHaveLength(1);
  });

  it("replyIn: channel answers in the channel, and a direct message is answered in place", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Here." }));
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      adapter: { replyIn: "channel" },
    });
    await t.say(ana, "where?");
    const top = t.fake.messagesIn(channel);
    expect(top.map((message) => message.text)).toEqual(["where?", "Here."]);
    expect(top[1]?.thread_ts).toBeUndefined();
    await t.fake.userMessage({ channel: "D0ANA", user: ana, text: "and here?", channelType: "im" });
    await t.settle();
    const direct = t.fake.messagesIn("D0ANA");
    expect(direct.map((message) => [message.text, message.thread_ts])).toEqual([
      ["and here?", undefined],
      ["Here.", undefined],
    ]);
  });
  it("stream: native answers through Slack's own stream, to the person who asked, led by the agent's name", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Streaming natively, **in Markdown**." }));
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      agentConfig: { alice: { displayName: "Alice" } },
      adapter: { stream: "native" },
    });
    const root = await t.say(ana, "stream please");
    expect(t.replies(root.ts).map((reply) => reply.text)).toEqual(["**Alice:** Streaming natively, **in Markdown**."]);
    expect(t.fake.callsTo("chat.startStream")[0]?.params).toMatchObject({
      channel,
      thread_ts: root.ts,
      recipient_user_id: ana,
      recipient_team_id: "T0FAKE",
    });
    expect(t.fake.callsTo("chat.stopStream")).toHaveLength(1);
    expect(t.fake.callsTo("chat.postMessage")).toHaveLength(0);
    expect(alice.requests).toHaveLength(1);
  });
});
