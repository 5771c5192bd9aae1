import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/world/channel/channel-clock.js";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { MessageStream } from "../../src/world/channel-streaming.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { Author } from "../../src/world/message.js";
import {
  ana,
  aliceToken,
  forumId,
  groupId,
  type Harness,
  harness,
  InstantClock,
  logsMatching,
  mainToken,
} from "./helpers.js";

const group: ChatRef = { platform: "telegram", channel: String(groupId) };
const privateChat: ChatRef = { platform: "telegram", channel: String(ana.id) };
const bob: Author = { kind: "agent", id: "bob", name: "bob" };
const alice: Author = { kind: "agent", id: "alice", name: "alice" };

/** About 10,000 characters of model output with everything that breaks naive HTML. */
function nastyAnswer(): string {
  const paragraphs: string[] = [];
  for (let index = 0; paragraphs.join("\n\n").length < 10_000; index += 1) {
    paragraphs.push(
      `Step ${index}: if a < b && b > c then x <= y; use <div> & "quotes"; 2 * 3 is six, *not closed; ` +
        "filler text to make the paragraph long enough for a realistic answer. ".repeat(3).trimEnd(),
    );
  }
  return paragraphs.join("\n\n");
}

describe("telegram posting", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("posts an agent's message through the main bot with its name in bold, as HTML", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const sent = await writerFor(h.adapter).postMessage(group, { author: bob, text: "The build is **green**." });
    expect(sent.ids).toHaveLength(1);
    const call = h.fake.callsTo("sendMessage", mainToken)[0];
    expect(call?.params).toMatchObject({
      chat_id: groupId,
      parse_mode: "HTML",
      text: "<b>bob:</b> The build is <b>green</b>.",
    });
    const message = h.fake.message(groupId, Number(sent.ids[0]));
    expect(message?.text).toBe("bob: The build is green.");
    expect(message?.entities).toEqual([
      { type: "bold", offset: 0, length: 4 },
      { type: "bold", offset: 18, length: 5 },
    ]);
  });

  it("posts the world's own notices without a name, replies where asked and into forum topics", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const { message } = h.fake.userMessage(mainToken, { chatId: forumId, from: ana, text: "hi", threadId: 9 });
    const topic: ChatRef = { platform: "telegram", channel: String(forumId), thread: "9" };
    const sent = await writerFor(h.adapter).postMessage(topic, {
      author: { kind: "system", id: "roundtable", name: "roundtable" },
      text: "Turn limit reached.",
      replyTo: String(message.message_id),
    });
    const stored = h.fake.message(forumId, Number(sent.ids[0]));
    expect(stored).toMatchObject({
      text: "Turn limit reached.",
      message_thread_id: 9,
      reply_to_message_id: message.message_id,
    });
  });

  it("delivers model output with <, &, unbalanced * and 10,000 characters intact in several messages", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const text = nastyAnswer();
    expect(text.length).toBeGreaterThanOrEqual(10_000);
    const sent = await writerFor(h.adapter).postMessage(group, { author: bob, text });
    expect(sent.ids.length).toBeGreaterThanOrEqual(3);
    const messages = sent.ids.map((id) => h.fake.message(groupId, Number(id)));
    for (const message of messages) {
      expect(message?.text.length).toBeLessThanOrEqual(4096);
      expect(message?.text.startsWith("bob: ")).toBe(true);
    }
    const received = messages.map((message) => message?.text.slice("bob: ".length)).join("\n\n");
    expect(received).toBe(text);
    // Nothing was refused on the way.
    expect(h.fake.callsTo("sendMessage").every((call) => call.ok)).toBe(true);
  });

  it("records each part of a long text before posting the next, so a retry after a failure between parts edits them instead of posting them again", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const text = nastyAnswer();
    h.fake.failNext("sendMessage", { error_code: 400, description: "Bad Request: chat is busy" }, { after: 1 });
    const recorded: string[][] = [];
    const observer = {
      posted: async (sent: { ids: string[] }) => {
        recorded.push(sent.ids);
      },
    };
    await expect(writerFor(h.adapter).postMessage(group, { author: bob, text }, observer)).rejects.toThrow(
      /chat is busy/,
    );
    // The first part was posted and recorded before the second was tried.
    expect(recorded).toHaveLength(1);
    const first = recorded[0] ?? [];
    expect(first).toHaveLength(1);
    expect(h.fake.callsTo("sendMessage").filter((call) => call.ok)).toHaveLength(1);

    // The retry (what the world does with that record) edits the first part and posts the rest.
    const sent = await writerFor(h.adapter).editMessage(group, { ids: first }, { author: bob, text }, observer);
    expect(sent.ids[0]).toBe(first[0]);
    const messages = h.fake.messagesIn(groupId).filter((message) => message.sentByToken !== undefined);
    expect(messages.map((message) => String(message.message_id))).toEqual(sent.ids);
    expect(messages.map((message) => message.text.replace(/^bob: /, "")).join("\n\n")).toBe(text);
    // Parts posted anew while more were to come were recorded too, each with the ids so far.
    expect(recorded.slice(1)).toEqual(sent.ids.slice(2).map((_, index) => sent.ids.slice(0, index + 2)));
  });

  it("posts as the agent's own bot in groups (no name prefix) and through the main bot in private chats", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const inGroup = await writerFor(h.adapter).postMessage(group, { author: alice, text: "Hello from my own bot." });
    const groupMessage = h.fake.message(groupId, Number(inGroup.ids[0]));
    expect(groupMessage?.from.username).toBe("alice_rt_bot");
    expect(groupMessage?.text).toBe("Hello from my own bot.");
    expect(h.fake.callsTo("sendMessage", aliceToken)).toHaveLength(1);

    const inPrivate = await writerFor(h.adapter).postMessage(privateChat, { author: alice, text: "Hi Ana." });
    const privateMessage = h.fake.message(ana.id, Number(inPrivate.ids[0]));
    expect(privateMessage?.from.username).toBe("roundtable_bot");
    expect(privateMessage?.text).toBe("alice: Hi Ana.");
  });

  it("falls back to the main bot with a bold name when an agent's token is refused", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: "9999:revoked" }] });
    await h.adapter.start(h.sink);
    expect(logsMatching(h.lines, /agent bot token refused/)).toHaveLength(1);
    const sent = await writerFor(h.adapter).postMessage(group, { author: alice, text: "Still here." });
    expect(h.fake.message(groupId, Number(sent.ids[0]))?.text).toBe("alice: Still here.");
  });

  it("honours 429 retry_after on sendMessage: the message arrives after the wait", async () => {
    h = await harness({ clock: systemClock });
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      retry_after: 1,
    });
    const sent = await writerFor(h.adapter).postMessage(group, { author: bob, text: "patience" });
    const calls = h.fake.callsTo("sendMessage");
    expect(calls.map((call) => call.errorCode ?? 200)).toEqual([429, 200]);
    expect(h.fake.message(groupId, Number(sent.ids[0]))?.text).toBe("bob: patience");
  });

  it("waits exactly retry_after through the injected clock, and retries a 5xx with backoff", async () => {
    const clock = new InstantClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      retry_after: 7,
    });
    h.fake.failNext("editMessageText", { error_code: 502, description: "Bad Gateway" }, { times: 2 });
    const sent = await writerFor(h.adapter).postMessage(group, { author: bob, text: "one" });
    expect(clock.sleeps).toEqual([7000]);
    const stream = (await writerFor(h.adapter).openStream(group, bob)) as MessageStream;
    stream.update("two");
    await stream.finish("two, edited");
    expect(h.fake.callsTo("sendMessage").map((call) => call.errorCode ?? 200)).toEqual([429, 200, 200]);
    expect(h.fake.callsTo("editMessageText").map((call) => call.errorCode ?? 200)).toEqual([502, 502, 200]);
    expect(sent.ids).toHaveLength(1);
  });

  it("gives up on a retry_after longer than allowed, with the wait in the error", async () => {
    h = await harness({ retry: { maxDelaySeconds: 5 } });
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 600",
      retry_after: 600,
    });
    const failure = writerFor(h.adapter).postMessage(group, { author: bob, text: "later" });
    await expect(failure).rejects.toBeInstanceOf(PlatformApiError);
    await expect(failure).rejects.toMatchObject({ code: "platform.refused", retryAfterMs: 600_000 });
  });

  it("a refusal names the Bot API method and whether the same call may succeed later", async () => {
    h = await harness({ retry: { maxDelaySeconds: 5 } });
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", { error_code: 400, description: "Bad Request: message is too long" });
    const refused = writerFor(h.adapter).postMessage(group, { author: bob, text: "no" });
    await expect(refused).rejects.toMatchObject({ code: "platform.refused", method: "sendMessage", retryable: false });
    h.fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 600",
      retry_after: 600,
    });
    const limited = writerFor(h.adapter).postMessage(group, { author: bob, text: "later" });
    await expect(limited).rejects.toMatchObject({ method: "sendMessage", retryable: true, retryAfterMs: 600_000 });
  });

  it("sends plain text when Telegram refuses the HTML", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", {
      error_code: 400,
      description: "Bad Request: can't parse entities: Unsupported start tag",
    });
    const sent = await writerFor(h.adapter).postMessage(group, { author: bob, text: "a **b** <c>" });
    const calls = h.fake.callsTo("sendMessage");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.params.parse_mode).toBeUndefined();
    expect(h.fake.message(groupId, Number(sent.ids[0]))?.text).toBe("bob: a **b** <c>");
    expect(logsMatching(h.lines, /refused our HTML/)).toHaveLength(1);
  });
});
