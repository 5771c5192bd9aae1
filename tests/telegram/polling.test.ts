import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ana,
  aliceToken,
  forumId,
  groupId,
  type Harness,
  harness,
  logsMatching,
  mainToken,
  RecordingSink,
} from "./helpers.js";

describe("telegram long polling (real grammY against the fake Bot API)", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("delivers a group message to the sink with @name mentions, a stable id and the sender's id", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    expect(h.fake.callsTo("getMe", mainToken)).toHaveLength(1);
    expect(h.fake.callsTo("deleteWebhook", mainToken)).toHaveLength(1);
    const text = "@alice_rt_bot and @Bob, look at this";
    const { message } = h.fake.userMessage(mainToken, {
      chatId: groupId,
      from: ana,
      text,
      entities: [
        { type: "mention", offset: 0, length: 13 },
        { type: "mention", offset: 18, length: 4 },
      ],
    });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(1));
    const inbound = h.sink.messages[0];
    expect(inbound).toMatchObject({
      chat: { platform: "telegram", channel: String(groupId) },
      platformMessageId: String(message.message_id),
      sender: { id: "111", displayName: "Ana", handle: "ana_r", isBot: false },
      text: "@alice and @bob, look at this",
      mentions: ["alice", "bob"],
    });
    expect(h.adapter.isConnected()).toBe(true);
    // Agent bots only send: nobody polls them.
    expect(h.fake.callsTo("getUpdates", aliceToken)).toHaveLength(0);
  });

  it("warns at start when privacy mode hides group messages, and says how to fix it", async () => {
    h = await harness();
    h.fake.addBot({ token: "2000:private", username: "shy_bot", canReadAllGroupMessages: false });
    const adapter = h.makeAdapter({ token: "2000:private" });
    await adapter.start(h.sink);
    const warnings = logsMatching(h.lines, /privacy mode is on/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/\/setprivacy.*Disable/);
    expect(warnings[0]?.msg).toMatch(/admin/);
    expect(warnings[0]?.level).toBe(40);

    await h.adapter.start(new RecordingSink());
    expect(logsMatching(h.lines, /privacy mode is on/)).toHaveLength(1); // the main bot reads everything
  });

  it("hands the same message delivered twice to the sink twice with the same platformMessageId (the world dedupes)", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const { message } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "once" });
    h.fake.pushUpdate(mainToken, { message });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(2));
    const [first, second] = h.sink.messages;
    expect(first?.platformMessageId).toBe(second?.platformMessageId);
    expect(first?.chat).toEqual(second?.chat);
    expect(h.sink.accepted).toHaveLength(1);
  });

  it("confirms offsets so that a restarted adapter does not get handled updates again", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const first = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "before restart" });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(1));
    await h.adapter.stop();
    expect(h.fake.confirmedOffset(mainToken)).toBe((first.update.update_id as number) + 1);
    expect(h.fake.pendingUpdates(mainToken)).toHaveLength(0);
    expect(h.adapter.isConnected()).toBe(false);

    const restartedSink = new RecordingSink();
    const restarted = h.makeAdapter();
    await restarted.start(restartedSink);
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "after restart" });
    await vi.waitFor(() => expect(restartedSink.messages).toHaveLength(1));
    expect(restartedSink.messages.map((message) => message.text)).toEqual(["after restart"]);
    expect(h.sink.messages).toHaveLength(1);
  });

  it("on stop, waits for the update in hand and then confirms it", async () => {
    h = await harness();
    let release: () => void = () => {};
    h.sink.gate = new Promise((resolve) => {
      release = resolve;
    });
    await h.adapter.start(h.sink);
    const { update } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "slow" });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(1));
    const stopping = h.adapter.stop();
    let stopped = false;
    void stopping.then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    expect(h.fake.confirmedOffset(mainToken)).toBeLessThanOrEqual(update.update_id as number);
    release();
    await stopping;
    expect(h.sink.accepted).toHaveLength(1);
    expect(h.fake.confirmedOffset(mainToken)).toBe((update.update_id as number) + 1);
  });

  it("hands a poll's chats in side by side, each chat's updates in order", async () => {
    h = await harness();
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.sink.gateOf = (message) => (message.text === "first in the group" ? slow : undefined);
    // Queued before the poller starts, so one poll brings all three.
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "first in the group" });
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "second in the group" });
    h.fake.userMessage(mainToken, { chatId: forumId, from: ana, text: "in the other chat" });
    await h.adapter.start(h.sink);
    // The other chat does not wait for the group's slow first message; the group's second does.
    await vi.waitFor(() => expect(h.sink.accepted.map((message) => message.text)).toEqual(["in the other chat"]));
    expect(h.sink.messages.map((message) => message.text)).not.toContain("second in the group");
    release();
    await vi.waitFor(() =>
      expect(h.sink.accepted.map((message) => message.text)).toEqual([
        "in the other chat",
        "first in the group",
        "second in the group",
      ]),
    );
  });

  it("on stop mid-poll, confirms up to the first update not handed in; the later ones come again and are duplicates", async () => {
    h = await harness();
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.sink.gateOf = (message) => (message.text === "slow" ? slow : undefined);
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "slow" });
    const left = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "left for later" });
    h.fake.userMessage(mainToken, { chatId: forumId, from: ana, text: "handled" });
    await h.adapter.start(h.sink);
    await vi.waitFor(() => expect(h.sink.accepted.map((message) => message.text)).toEqual(["handled"]));
    const stopping = h.adapter.stop();
    release();
    await stopping;
    expect(h.sink.accepted.map((message) => message.text)).toEqual(["handled", "slow"]);
    expect(h.fake.confirmedOffset(mainToken)).toBe(left.update.update_id as number);

    const restarted = h.makeAdapter();
    await restarted.start(h.sink);
    await vi.waitFor(() =>
      expect(h.sink.accepted.map((message) => message.text)).toEqual(["handled", "slow", "left for later"]),
    );
    await vi.waitFor(() => expect(h.sink.messages.filter((message) => message.text === "handled")).toHaveLength(2));
    await restarted.stop();
  });

  it("hands an update in again when the world fails to take it, and only then moves on", async () => {
    h = await harness();
    h.sink.failNextMessages = 2;
    await h.adapter.start(h.sink);
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "keep me" });
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "next" });
    await vi.waitFor(() => expect(h.sink.accepted.map((message) => message.text)).toEqual(["keep me", "next"]));
    expect(h.sink.messages.map((message) => message.text)).toEqual(["keep me", "keep me", "keep me", "next"]);
    expect(logsMatching(h.lines, /not handled; retrying/)).toHaveLength(2);
  });

  it("never skips an update while the database is away: it stays unconfirmed and is handed in again until the world has it", async () => {
    h = await harness({ maxDeliveryAttempts: 3 });
    h.sink.failNextMessages = 8;
    h.sink.failWith = () => new Error("Connection terminated unexpectedly");
    await h.adapter.start(h.sink);
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "keep me" });
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "next" });
    await vi.waitFor(() => expect(h.sink.accepted.map((message) => message.text)).toEqual(["keep me", "next"]));
    expect(h.sink.messages.filter((message) => message.text === "keep me")).toHaveLength(9);
    expect(logsMatching(h.lines, /skipped after repeated failures/)).toHaveLength(0);
    expect(logsMatching(h.lines, /the database is away; kept unconfirmed/)).toHaveLength(8);
  });

  it("never skips an update refused by a database that is away however the error reads (grammY wraps it: BotError.error)", async () => {
    h = await harness({ maxDeliveryAttempts: 3 });
    h.sink.failNextMessages = 6;
    // pg's refusal reads "connect ECONNREFUSED …"; only its code says what it is, on the error grammY wraps.
    h.sink.failWith = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    await h.adapter.start(h.sink);
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "keep me" });
    await vi.waitFor(() => expect(h.sink.accepted.map((message) => message.text)).toEqual(["keep me"]));
    expect(logsMatching(h.lines, /skipped after repeated failures/)).toHaveLength(0);
    expect(logsMatching(h.lines, /the database is away; kept unconfirmed/)).toHaveLength(6);
  });

  it("logs and skips malformed updates without stopping the poller", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    h.fake.pushUpdate(mainToken, { message: { message_id: 1, text: "no chat, no date" } });
    h.fake.pushUpdate(mainToken, {
      message: { message_id: 2, date: 1, chat: { id: groupId, type: "supergroup" }, text: "no sender" },
    });
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "still here" });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(1));
    expect(h.sink.messages[0]?.text).toBe("still here");
    expect(logsMatching(h.lines, /malformed telegram update skipped/)).toHaveLength(2);
    await h.adapter.stop();
    expect(h.fake.pendingUpdates(mainToken)).toHaveLength(0);
  });

  it("makes a forum topic its own chat and passes replies on", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    h.fake.userMessage(mainToken, { chatId: forumId, from: ana, text: "in a topic", threadId: 7 });
    const sent = await writerFor(h.adapter).postMessage(
      { platform: "telegram", channel: String(groupId) },
      { author: { kind: "agent", id: "bob", name: "bob" }, text: "Done." },
    );
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "thanks", replyTo: Number(sent.ids[0]) });
    await vi.waitFor(() => expect(h.sink.messages).toHaveLength(2));
    expect(h.sink.messages[0]?.chat).toEqual({ platform: "telegram", channel: String(forumId), thread: "7" });
    expect(h.sink.messages[1]?.replyTo).toBe(sent.ids[0]);
  });
});
