import { describe, expect, it } from "vitest";
import { writerFor } from "../../../src/world/delivery/channel-writer.js";
import type { EditStream } from "../../../src/world/delivery/edit-stream.js";
import type { SentRef } from "../../../src/world/outbound-text.js";
import { alice, chat, MemoryAdapter, StepClock } from "./memory-channel.js";

function setUp(options: { liveControls?: boolean; paceKey?: string; draft?: boolean } = {}) {
  const channel = new MemoryAdapter();
  const clock = new StepClock();
  channel.mode = {
    kind: "edit",
    intervalMs: 1000,
    clock,
    ...(options.liveControls ? { liveControls: true } : {}),
    ...(options.paceKey === undefined ? {} : { paceKey: options.paceKey }),
    ...(options.draft ? { draft: channel.draftSurface() } : {}),
  };
  const recorded: SentRef[] = [];
  const open = async () =>
    (await writerFor(channel).openStream(chat, alice, {
      posted: async (sent) => {
        recorded.push(sent);
        channel.calls.push({ kind: "record", ids: [...sent.ids] });
      },
    })) as EditStream<string>;
  return { channel, clock, recorded, open };
}

describe("the edit stream: post, then edit at most once an interval", () => {
  it("posts the first text at once, then one edit per interval with the latest text", async () => {
    const { channel, clock, open } = setUp();
    const stream = await open();
    stream.update("Checking");
    await stream.settled();
    stream.update("Checking the");
    stream.update("Checking the logs");
    await stream.settled();
    expect(channel.texts()).toEqual(["Checking"]);
    expect(clock.sleeping()).toBe(1);
    clock.advance(999);
    await stream.settled();
    expect(channel.texts()).toEqual(["Checking"]);
    clock.advance(1);
    await stream.settled();
    expect(channel.texts()).toEqual(["Checking the logs"]);
    expect(channel.calls.filter((call) => call.kind === "edit")).toHaveLength(1);
  });

  it("records every message it adds before going on; a part that outgrows one message is settled", async () => {
    const { channel, clock, open, recorded } = setUp();
    const stream = await open();
    stream.update("one two three four five");
    await stream.settled();
    expect(recorded).toEqual([{ ids: ["m1"] }, { ids: ["m1", "m2"] }]);
    const kinds = channel.calls.map((call) => call.kind);
    expect(kinds).toEqual(["send", "record", "send", "record"]);
    clock.advance(1000);
    const sent = await stream.finish("one two three four five six");
    expect(sent.ids).toEqual(["m1", "m2"]);
    expect(channel.texts()).toEqual(["one two three four", "five six"]);
  });

  it("with live controls, only the last part is live, and finishing takes them off", async () => {
    const { channel, clock, open } = setUp({ liveControls: true });
    const stream = await open();
    stream.update("one two three four five");
    await stream.settled();
    expect(channel.messages.map((message) => message.live)).toEqual([false, true]);
    const finishing = stream.finish("one two three four five");
    await stream.settled();
    // The text is unchanged, but the last part is live: it waits the interval and edits.
    expect(clock.sleeping()).toBe(1);
    clock.advance(1000);
    await finishing;
    expect(channel.messages.map((message) => message.live)).toEqual([false, false]);
  });

  it("finishing when the chat already shows the final text returns at once", async () => {
    const { channel, clock, open } = setUp();
    const stream = await open();
    stream.update("All green.");
    await stream.settled();
    channel.calls.length = 0;
    const sent = await stream.finish("All green.");
    expect(sent.ids).toEqual(["m1"]);
    expect(channel.calls).toEqual([]);
    expect(clock.sleeping()).toBe(0);
  });

  it("a final text shorter than what was streamed removes the surplus parts", async () => {
    const { channel, clock, open } = setUp();
    const stream = await open();
    stream.update("one two three four five six");
    await stream.settled();
    expect(channel.messages).toHaveLength(2);
    const finishing = stream.finish("one two");
    await stream.settled();
    clock.advance(1000);
    const sent = await finishing;
    expect(sent.ids).toEqual(["m1"]);
    expect(channel.texts()).toEqual(["one two"]);
  });

  it("hold shows no further updates and waits for the change in flight (and its record)", async () => {
    const { channel, clock, open, recorded } = setUp();
    const stream = await open();
    stream.update("first");
    await stream.hold();
    expect(recorded).toEqual([{ ids: ["m1"] }]);
    stream.update("first and more");
    clock.advance(5000);
    await stream.settled();
    expect(channel.texts()).toEqual(["first"]);
  });

  it("abort removes the messages it posted", async () => {
    const { channel, open } = setUp();
    const stream = await open();
    stream.update("one two three four five");
    await stream.settled();
    await stream.abort();
    expect(channel.messages).toEqual([]);
  });

  it("streams sharing a pace key share one budget", async () => {
    const { channel, clock, open } = setUp({ paceKey: "chat-1" });
    const first = await open();
    const second = await open();
    first.update("first answer");
    await first.settled();
    second.update("second answer");
    await second.settled();
    expect(channel.texts()).toEqual(["first answer"]);
    clock.advance(1000);
    await second.settled();
    expect(channel.texts()).toEqual(["first answer", "second answer"]);
  });

  it("without a pace key each stream has its own budget", async () => {
    const { channel, open } = setUp();
    const first = await open();
    const second = await open();
    first.update("first answer");
    await first.settled();
    second.update("second answer");
    await second.settled();
    expect(channel.texts()).toEqual(["first answer", "second answer"]);
  });

  it("the draft surface shows the part being written; settled parts and the end are messages", async () => {
    const { channel, open } = setUp({ draft: true });
    const stream = await open();
    stream.update("one two three four five");
    await stream.settled();
    expect(channel.texts()).toEqual(["one two three four"]);
    expect(channel.drafts).toEqual(["five"]);
    const sent = await stream.finish("one two three four five six");
    expect(channel.texts()).toEqual(["one two three four", "five six"]);
    expect(sent.ids).toEqual(["m1", "m2"]);
    // A draft is no message: abort leaves nothing to remove for it.
  });

  it("a refused draft surface falls back to edits", async () => {
    const { channel, open } = setUp({ draft: true });
    channel.refuseDrafts = true;
    const stream = await open();
    stream.update("hello");
    await stream.settled();
    expect(channel.texts()).toEqual(["hello"]);
  });

  it("the answer's key goes with each part it posts", async () => {
    const channel = new MemoryAdapter();
    channel.mode = { kind: "edit", intervalMs: 1000, clock: new StepClock() };
    const stream = (await writerFor(channel).openStream(chat, alice, {
      posted: async () => {},
      postKey: { id: "t1#1", mayExist: false, since: new Date(0) },
    })) as EditStream<string>;
    stream.update("one two three four five");
    await stream.settled();
    expect(channel.messages.map((message) => message.key)).toEqual(["t1#1:0", "t1#1:1"]);
  });
});
