import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { InboundMessage } from "../../src/world/inbound.js";
import { inboundMessageId } from "../../src/world/ingress/inbound-message-id.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const parent: ChatRef = { platform: "slack", channel: "C1" };
const thread: ChatRef = { ...parent, thread: "1700.1" };
let counter = 0;

function message(chat: ChatRef, text: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  counter += 1;
  return {
    chat,
    platformMessageId: `m${counter}`,
    sender: { id: "U-ana", displayName: "ana", isBot: false },
    text,
    mentions: [],
    receivedAt: new Date(),
    raw: {},
    ...extra,
  };
}

describe("what channels hand in and get back", () => {
  it("an echo of the service's own post is neither stored nor answered", async () => {
    const alice = new ScriptedProvider(() => ({ text: "hi" }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      platform: "slack",
      world: { allowBots: true, defaultAgent: "alice" },
    });
    const echo = message(parent, "@alice hello", {
      sender: { id: "B-self", displayName: "alice", isBot: true },
      ownEcho: true,
    });
    const result = await harness.channel.send(echo);
    await harness.idle();
    expect(result).toEqual({ status: "ignored", reason: "the service's own message" });
    expect(await harness.store.getMessage(inboundMessageId(chatKey(parent), echo.platformMessageId))).toBeUndefined();
    expect(alice.requests).toHaveLength(0);
  });

  it("the first turn in a thread sees the thread's root message, stored once", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Looking into it." }));
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }], platform: "slack" });
    const root = {
      platformMessageId: "1700.1",
      sender: { id: "U-carol", displayName: "carol", isBot: false },
      text: "The deploy failed at step 3",
    };
    await harness.channel.send(message(thread, "@alice what happened here?", { threadRoot: root }));
    await harness.idle();
    await harness.channel.send(message(thread, "@alice and now?", { threadRoot: root }));
    await harness.idle();

    expect(alice.requests[0]?.messages).toEqual([
      { role: "user", text: "carol: The deploy failed at step 3" },
      { role: "user", text: "ana: @alice what happened here?" },
    ]);
    const stored = await harness.store.listMessages(chatKey(thread));
    expect(stored.filter((each) => each.text === root.text)).toHaveLength(1);
    expect(alice.requests).toHaveLength(2);
  });

  it("a thread under an agent's own answer shows that answer as the agent's", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.length === 1 ? { text: "Release is on Friday." } : { text: "Yes, Friday." },
    );
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }], platform: "slack" });
    await harness.channel.send(message(parent, "@alice when is the release?"));
    await harness.idle();
    const answer = harness.channel.messages()[0];
    expect(answer?.text).toBe("Release is on Friday.");
    const reply = { ...parent, thread: answer?.id ?? "" };
    await harness.channel.send(
      message(reply, "@alice sure?", {
        threadRoot: {
          platformMessageId: answer?.id ?? "",
          sender: { id: "B-self", displayName: "alice", isBot: true },
          text: "Release is on Friday.",
          ownPost: true,
        },
      }),
    );
    await harness.idle();
    expect(alice.requests[1]?.messages.slice(0, 2)).toEqual([
      expect.objectContaining({ role: "assistant", text: "Release is on Friday." }),
      { role: "user", text: "ana: @alice sure?" },
    ]);
  });

  it("agents post under their display name and picture, and name people and agents as structured mentions", async () => {
    const alice = new ScriptedProvider(() => ({ text: "@ana, @bob will check. Mail ana@example.org" }));
    const bob = new ScriptedProvider(() => ({ text: "ok" }));
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      platform: "slack",
      agentConfig: { alice: { displayName: "Alice (release)", avatarUrl: "https://example.org/alice.png" } },
    });
    await harness.channel.send(message(parent, "@alice status?"));
    await harness.idle();
    const posted = harness.channel.messages()[0]?.outbound;
    expect(posted?.author).toEqual({
      kind: "agent",
      id: "alice",
      name: "alice",
      displayName: "Alice (release)",
      avatarUrl: "https://example.org/alice.png",
    });
    expect(posted?.mentions).toEqual([
      { text: "@ana", target: { kind: "person", id: "U-ana", name: "ana" } },
      { text: "@bob", target: { kind: "agent", name: "bob", displayName: "bob" } },
    ]);
  });
});
