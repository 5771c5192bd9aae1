import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramPart } from "../../channels/telegram/render.js";
import type { EditStream } from "../../src/world/delivery/edit-stream.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { Author } from "../../src/world/message.js";
import { ana, aliceToken, groupId, type Harness, harness, ManualClock, mainToken } from "./helpers.js";

const group: ChatRef = { platform: "telegram", channel: String(groupId) };
const privateChat: ChatRef = { platform: "telegram", channel: String(ana.id) };
const bob: Author = { kind: "agent", id: "bob", name: "bob" };
const alice: Author = { kind: "agent", id: "alice", name: "alice" };

/** Feed `steps` growing texts, `stepMs` apart on the manual clock, letting each settle. */
async function feed(
  stream: EditStream<TelegramPart>,
  clock: ManualClock,
  steps: number,
  stepMs: number,
  word = "word",
): Promise<string> {
  let text = "";
  for (let index = 0; index < steps; index += 1) {
    clock.advance(stepMs);
    text += `${word}${index} `;
    stream.update(text);
    await stream.settled();
  }
  return text;
}

/** Finish while the clock is stepped until the final change is allowed. */
async function finishOn(stream: EditStream<TelegramPart>, clock: ManualClock, text: string): Promise<string[]> {
  const finishing = stream.finish(text);
  let done = false;
  void finishing.finally(() => {
    done = true;
  });
  while (!done) {
    await stream.settled();
    // Move time only while the stream waits for it, so that time stays deterministic.
    if (clock.sleeping() > 0) clock.advance(500);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return (await finishing).ids;
}

describe("telegram streaming", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("in a group: sends once, then edits at most once every 3 seconds", async () => {
    const clock = new ManualClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    const stream = (await writerFor(h.adapter).openStream(group, bob)) as EditStream<TelegramPart>;
    // 20 updates, 500 ms apart: 10 seconds of streaming.
    const text = await feed(stream, clock, 20, 500);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    // First text at t=0.5 s (sent); edits allowed at 3.5, 6.5, 9.5 s.
    expect(h.fake.callsTo("editMessageText")).toHaveLength(3);
    const ids = await finishOn(stream, clock, `${text}**done**`);
    // The final edit waited for its 3 seconds: 12.5 s of stream, 4 edits.
    expect(h.fake.callsTo("editMessageText")).toHaveLength(4);
    expect(h.fake.callsTo("sendMessageDraft")).toHaveLength(0);
    expect(ids).toHaveLength(1);
    const message = h.fake.message(groupId, Number(ids[0]));
    expect(message?.text).toBe(`bob: ${text}done`);
    expect(message?.editCount).toBe(4);
  });

  it("in a private chat: shows drafts (at most one a second), then sends the final message", async () => {
    const clock = new ManualClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    const stream = (await writerFor(h.adapter).openStream(privateChat, bob)) as EditStream<TelegramPart>;
    const text = await feed(stream, clock, 10, 250);
    // 2.5 seconds: drafts at 0.25, 1.25 and 2.25 s.
    const drafts = h.fake.callsTo("sendMessageDraft", mainToken);
    expect(drafts).toHaveLength(3);
    const draftIds = new Set(drafts.map((call) => call.params.draft_id));
    expect(draftIds.size).toBe(1);
    expect([...draftIds][0]).not.toBe(0);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(0);
    const ids = await stream.finish(`${text}end`).then((sent) => sent.ids);
    expect(ids).toHaveLength(1);
    expect(h.fake.message(ana.id, Number(ids[0]))?.text).toBe(`bob: ${text}end`);
    expect(h.fake.callsTo("editMessageText")).toHaveLength(0);
  });

  it("in a private chat without drafts on the server: falls back to edits, and stops trying drafts", async () => {
    const clock = new ManualClock();
    h = await harness({ clock });
    h.fake.draftsSupported = false;
    await h.adapter.start(h.sink);
    const first = (await writerFor(h.adapter).openStream(privateChat, bob)) as EditStream<TelegramPart>;
    const text = await feed(first, clock, 8, 500);
    await finishOn(first, clock, text);
    expect(h.fake.callsTo("sendMessageDraft")).toHaveLength(1);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
    // One a second: the first at 0.5 s sent, edits at 1.5, 2.5, 3.5 s, and the final one.
    expect(h.fake.callsTo("editMessageText")).toHaveLength(4);

    const second = (await writerFor(h.adapter).openStream(privateChat, bob)) as EditStream<TelegramPart>;
    clock.advance(1000);
    second.update("again");
    await second.settled();
    expect(h.fake.callsTo("sendMessageDraft")).toHaveLength(1);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(2);
  });

  it("settles a streamed answer longer than one message into several messages", async () => {
    const clock = new ManualClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    const stream = (await writerFor(h.adapter).openStream(group, bob)) as EditStream<TelegramPart>;
    const paragraph = `${"Streaming text with < and & inside. ".repeat(20).trimEnd()}\n\n`;
    let text = "";
    for (let index = 0; index < 14; index += 1) {
      clock.advance(3000);
      text += paragraph;
      stream.update(text);
      await stream.settled();
    }
    const ids = await finishOn(stream, clock, text);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const texts = ids.map((id) => h.fake.message(groupId, Number(id))?.text ?? "");
    for (const each of texts) expect(each.length).toBeLessThanOrEqual(4096);
    expect(texts.map((each) => each.slice("bob: ".length)).join("\n\n")).toBe(text.trimEnd());
    expect(h.fake.callsTo("sendMessage").every((call) => call.ok)).toBe(true);
    expect(h.fake.callsTo("editMessageText").every((call) => call.ok)).toBe(true);
  });

  it("streams as the agent's own bot in a group, and abort removes the partial message", async () => {
    const clock = new ManualClock();
    h = await harness({ clock, agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const stream = (await writerFor(h.adapter).openStream(group, alice)) as EditStream<TelegramPart>;
    await feed(stream, clock, 3, 500);
    const sent = h.fake.callsTo("sendMessage", aliceToken);
    expect(sent).toHaveLength(1);
    expect(h.fake.messagesIn(groupId).map((message) => message.text)).toEqual(["word0"]);
    await stream.abort();
    expect(h.fake.messagesIn(groupId)).toHaveLength(0);
    expect(h.fake.callsTo("deleteMessage", aliceToken)).toHaveLength(1);
  });
});
