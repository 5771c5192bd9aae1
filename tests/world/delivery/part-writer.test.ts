import { describe, expect, it } from "vitest";
import type { ApprovalCard, ApprovalOutcome } from "../../../src/world/approval-types.js";
import { writeCard, writeOutcome, writeText } from "../../../src/world/delivery/part-writer.js";
import type { PostKey } from "../../../src/world/delivery/post-key.js";
import type { SentRef } from "../../../src/world/outbound-text.js";
import { alice, chat, MemoryChannel } from "./memory-channel.js";

const long = "one two three four five six seven eight nine ten eleven twelve";

function key(mayExist: boolean, id = "t1#1"): PostKey {
  return { id, mayExist, since: new Date(0) };
}

/** A record function that logs into the channel's calls, so the order against the platform shows. */
function recorder(channel: MemoryChannel): (sent: SentRef) => Promise<void> {
  return async (sent) => {
    channel.calls.push({ kind: "record", ids: [...sent.ids] });
  };
}

const card: ApprovalCard = {
  approvalId: "appr-1",
  shortId: "a1",
  agent: "alice",
  tool: "shell_cmd",
  argumentsJson: "{}",
  reason: "r",
  requestedFor: "Ana",
  expiresAt: new Date(0),
} as unknown as ApprovalCard;

const outcome = { approvalId: "appr-1", state: "approved" } as unknown as ApprovalOutcome;

describe("writeText: the one part writer", () => {
  it("posts each part, recording the ids so far before each next part (never after the last)", async () => {
    const channel = new MemoryChannel();
    const sent = await writeText(channel, chat, { author: alice, text: long }, { record: recorder(channel) });
    expect(sent.ids).toHaveLength(channel.messages.length);
    expect(channel.texts().join(" ")).toBe(long);
    const kinds = channel.calls.map((call) => (call.kind === "record" ? `record ${call.ids.length}` : call.kind));
    expect(kinds).toEqual(["send", "record 1", "send", "record 2", "send", "record 3", "send"]);
  });

  it("carries the post's key per part: `<id>:<index>`", async () => {
    const channel = new MemoryChannel();
    await writeText(channel, chat, { author: alice, text: long }, { key: key(false) });
    expect(channel.messages.map((message) => message.key)).toEqual(["t1#1:0", "t1#1:1", "t1#1:2", "t1#1:3"]);
  });

  it("edits the parts a draft has, sends the missing ones, records before each new part", async () => {
    const channel = new MemoryChannel();
    const draft = await writeText(channel, chat, { author: alice, text: "one two three" });
    channel.calls.length = 0;
    const sent = await writeText(
      channel,
      chat,
      { author: alice, text: long },
      {
        shown: draft.ids,
        record: recorder(channel),
      },
    );
    expect(sent.ids[0]).toBe(draft.ids[0]);
    expect(channel.texts().join(" ")).toBe(long);
    // The draft's one id is recorded already: the first record is after the first new part.
    expect(channel.calls.map((call) => call.kind)).toEqual(["edit", "send", "record", "send", "record", "send"]);
  });

  it("removes the surplus parts of a longer draft after recording the ids kept", async () => {
    const channel = new MemoryChannel();
    const draft = await writeText(channel, chat, { author: alice, text: long });
    channel.calls.length = 0;
    const sent = await writeText(
      channel,
      chat,
      { author: alice, text: "all done" },
      {
        shown: draft.ids,
        record: recorder(channel),
      },
    );
    expect(sent.ids).toEqual([draft.ids[0]]);
    expect(channel.texts()).toEqual(["all done"]);
    expect(channel.calls.map((call) => call.kind)).toEqual(["edit", "record", "delete", "delete", "delete"]);
    expect(channel.calls[1]).toEqual({ kind: "record", ids: [draft.ids[0]] });
  });

  it("when the post may exist, finds the earlier run's part and edits it only where it differs", async () => {
    const channel = new MemoryChannel();
    channel.findable = true;
    // An earlier run posted the first part (a stream's shorter text) and died before recording it.
    await channel.sendPart(chat, alice, "one two", { key: { key: "t1#1:0", mayExist: false, since: new Date(0) } });
    channel.calls.length = 0;
    const sent = await writeText(channel, chat, { author: alice, text: "one two three" }, { key: key(true) });
    expect(sent.ids).toEqual(["m1"]);
    expect(channel.texts()).toEqual(["one two three"]);
    expect(channel.calls.map((call) => call.kind)).toEqual(["find", "edit"]);
    // The same text again: found, nothing changed.
    channel.calls.length = 0;
    await writeText(channel, chat, { author: alice, text: "one two three" }, { key: key(true) });
    expect(channel.calls.map((call) => call.kind)).toEqual(["find"]);
  });

  it("a first attempt (mayExist false) costs no look-up", async () => {
    const channel = new MemoryChannel();
    channel.findable = true;
    await writeText(channel, chat, { author: alice, text: "hello" }, { key: key(false) });
    expect(channel.calls.map((call) => call.kind)).toEqual(["send"]);
  });
});

describe("writeCard and writeOutcome", () => {
  it("records a card's id before its attachment is sent", async () => {
    const channel = new MemoryChannel();
    channel.attachments = true;
    const sent = await writeCard(channel, chat, card, key(false, "card:appr-1"), recorder(channel));
    expect(channel.calls.map((call) => call.kind)).toEqual(["card", "record", "attach"]);
    expect(sent.ids).toEqual(["m1"]);
    expect(channel.messages[0]?.key).toBe("card:appr-1:0");
  });

  it("records nothing itself for a card without an attachment (the caller records it)", async () => {
    const channel = new MemoryChannel();
    await writeCard(channel, chat, card, undefined, recorder(channel));
    expect(channel.calls.map((call) => call.kind)).toEqual(["card"]);
  });

  it("edits the card to its outcome; a card gone gets the outcome posted once and recorded", async () => {
    const channel = new MemoryChannel();
    const sent = await writeCard(channel, chat, card, undefined);
    expect(await writeOutcome(channel, chat, sent, outcome, key(false, "outcome:appr-1"), recorder(channel))).toBe(
      "edited",
    );
    expect(channel.texts()).toEqual(["card approved"]);
    channel.goneCards.add(sent.ids[0] ?? "");
    channel.calls.length = 0;
    expect(await writeOutcome(channel, chat, sent, outcome, key(false, "outcome:appr-1"), recorder(channel))).toBe(
      "posted",
    );
    expect(channel.calls.map((call) => call.kind)).toEqual(["edit-card", "send", "record"]);
    expect(channel.messages.at(-1)).toMatchObject({ text: "outcome approved", key: "outcome:appr-1:0" });
  });
});
