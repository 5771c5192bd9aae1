import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import { ana, eve, forumId, groupId, type Harness, harness, logsMatching, mainToken } from "./helpers.js";

const group: ChatRef = { platform: "telegram", channel: String(groupId) };

const card: ApprovalCard = {
  approvalId: "0mfxq2k3a9f3c2e1d0b4a59687c1",
  shortId: "7f3a",
  agent: "alice",
  tool: "shell_cmd",
  argumentsJson: '{"command":"grep","args":["a<b","x&y"]}',
  argumentsPreview: '{\n  "command": "grep",\n  "args": ["a<b", "x&y"]\n}',
  reason: "shell_cmd needs approval",
  requestedFor: "Ana",
  choices: ["once", "session", "deny"],
  expiresAt: new Date("2026-11-23T12:30:00Z"),
};

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

describe("telegram approval cards", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  async function postCard(chat: ChatRef = group): Promise<{ messageId: number; keyboard: Keyboard }> {
    await h.adapter.start(h.sink);
    const sent = await writerFor(h.adapter).postApprovalCard(chat, card);
    expect(sent.ids).toHaveLength(1);
    const messageId = Number(sent.ids[0]);
    const message = h.fake.message(Number(chat.channel), messageId);
    return { messageId, keyboard: message?.reply_markup as Keyboard };
  }

  it("posts the agent, tool and arguments with an inline keyboard whose callback_data fits 64 bytes", async () => {
    h = await harness();
    const { messageId, keyboard } = await postCard();
    const message = h.fake.message(groupId, messageId);
    expect(message?.from.username).toBe("roundtable_bot");
    expect(message?.text).toContain("alice wants to run shell_cmd");
    expect(message?.text).toContain('"args": ["a<b", "x&y"]');
    expect(message?.text).toContain("7f3a");
    const buttons = keyboard.inline_keyboard.flat();
    expect(buttons.map((button) => button.text)).toEqual(["✅ Approve once", "🔁 For session", "❌ Deny"]);
    for (const button of buttons) {
      expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);
      expect(button.callback_data).toContain(card.approvalId);
      // Only the opaque id and the choice: no agent, tool or arguments.
      expect(button.callback_data).not.toMatch(/alice|shell|grep/);
    }
  });

  it("hands a press to the sink and answers it at once with the world's text", async () => {
    h = await harness();
    const { messageId, keyboard } = await postCard();
    const session = keyboard.inline_keyboard.flat()[1]?.callback_data ?? "";
    const queryId = h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: ana, data: session });
    await vi.waitFor(() => expect(h.fake.callbackAnswers.get(queryId)).toBeDefined());
    expect(h.sink.clicks).toHaveLength(1);
    expect(h.sink.clicks[0]).toMatchObject({
      chat: group,
      approvalId: card.approvalId,
      choice: "session",
      user: { id: "111", displayName: "Ana", isBot: false },
      platformEventId: queryId,
    });
    expect(h.fake.callbackAnswers.get(queryId)).toEqual({ text: "Approved once.", show_alert: false });
  });

  it("a press while the database is away is not answered with an alert: its update is handed in again until the world takes it", async () => {
    h = await harness();
    const { messageId, keyboard } = await postCard();
    const once = keyboard.inline_keyboard.flat()[0]?.callback_data ?? "";
    h.sink.failNextClicks = 2;
    h.sink.failWith = () => new Error("Connection terminated unexpectedly");
    const queryId = h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: ana, data: once });
    await vi.waitFor(() => expect(h.fake.callbackAnswers.get(queryId)).toBeDefined());
    expect(h.sink.clicks).toHaveLength(3);
    expect(h.fake.callbackAnswers.get(queryId)).toEqual({ text: "Approved once.", show_alert: false });
    expect(logsMatching(h.lines, /approval click failed/)).toHaveLength(0);
  });

  it("tells the world when the presser is a chat admin (for `admins` approvers)", async () => {
    h = await harness();
    h.fake.setMemberStatus(groupId, eve.id, "administrator");
    const { messageId, keyboard } = await postCard();
    const once = keyboard.inline_keyboard.flat()[0]?.callback_data ?? "";
    h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: eve, data: once });
    h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: ana, data: once });
    await vi.waitFor(() => expect(h.sink.clicks).toHaveLength(2));
    expect(h.sink.clicks[0]?.user).toEqual({ id: String(eve.id), displayName: "Eve", isBot: false, roles: ["admin"] });
    expect(h.sink.clicks[1]?.user).toEqual({ id: String(ana.id), displayName: "Ana", handle: "ana_r", isBot: false });
  });

  it("answers someone not allowed with an alert and changes nothing", async () => {
    h = await harness();
    h.sink.clickResult = () => ({ status: "not-allowed", text: "You are not allowed to decide this." });
    const { messageId, keyboard } = await postCard();
    const once = keyboard.inline_keyboard.flat()[0]?.callback_data ?? "";
    const queryId = h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: eve, data: once });
    await vi.waitFor(() => expect(h.fake.callbackAnswers.get(queryId)).toBeDefined());
    expect(h.fake.callbackAnswers.get(queryId)).toEqual({
      text: "You are not allowed to decide this.",
      show_alert: true,
    });
    const message = h.fake.message(groupId, messageId);
    expect(message?.editCount).toBe(0);
    expect(message?.reply_markup).toEqual(keyboard);
    expect(h.fake.callsTo("editMessageText")).toHaveLength(0);
  });

  it("answers a press on an unknown approval with an alert, and one on an already decided one without", async () => {
    h = await harness();
    const results = [
      { status: "unknown", text: "This approval no longer exists." },
      { status: "already-decided", text: "Already decided by Ana." },
    ] as const;
    let index = 0;
    h.sink.clickResult = () => results[index++] ?? results[0];
    const { messageId, keyboard } = await postCard();
    const deny = keyboard.inline_keyboard.flat()[2]?.callback_data ?? "";
    const first = h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: ana, data: deny });
    const second = h.fake.pressButton(mainToken, { chatId: groupId, messageId, from: ana, data: deny });
    await vi.waitFor(() => expect(h.fake.callbackAnswers.get(second)).toBeDefined());
    expect(h.fake.callbackAnswers.get(first)).toEqual({ text: "This approval no longer exists.", show_alert: true });
    expect(h.fake.callbackAnswers.get(second)).toEqual({ text: "Already decided by Ana.", show_alert: false });
  });

  it("answers malformed callback_data with 'This button is no longer valid.' and logs it", async () => {
    h = await harness();
    const { messageId } = await postCard();
    const queryId = h.fake.pressButton(mainToken, {
      chatId: groupId,
      messageId,
      from: ana,
      data: "approve-everything",
    });
    await vi.waitFor(() => expect(h.fake.callbackAnswers.get(queryId)).toBeDefined());
    expect(h.fake.callbackAnswers.get(queryId)).toEqual({ text: "This button is no longer valid.", show_alert: true });
    expect(h.sink.clicks).toHaveLength(0);
    expect(logsMatching(h.lines, /button press refused/)).toHaveLength(1);
  });

  it("edits the card to show the outcome and who decided, and removes the buttons", async () => {
    h = await harness();
    const { messageId } = await postCard();
    const outcome: ApprovalOutcome = {
      approvalId: card.approvalId,
      shortId: card.shortId,
      agent: "alice",
      tool: "shell_cmd",
      argumentsPreview: card.argumentsPreview,
      state: "approved",
      choice: "session",
      decidedBy: { id: "111", name: "Ana <admin>" },
      at: new Date("2026-11-23T12:01:00Z"),
    };
    await writerFor(h.adapter).updateApprovalCard(group, { ids: [String(messageId)] }, outcome);
    const message = h.fake.message(groupId, messageId);
    expect(message?.text).toContain("Approved for this session by Ana <admin>");
    expect(message?.text).toContain("shell_cmd");
    expect(message?.reply_markup).toBeUndefined();
    expect(h.fake.callsTo("editMessageText")).toHaveLength(1);

    // Delivered twice (the world retries): Telegram says "not modified", which is fine.
    await writerFor(h.adapter).updateApprovalCard(group, { ids: [String(messageId)] }, outcome);
    expect(message?.editCount).toBe(1);
  });

  it("shows denial, expiry and supersession", async () => {
    h = await harness();
    const { messageId } = await postCard();
    const base = {
      approvalId: card.approvalId,
      shortId: "7f3a",
      agent: "alice",
      tool: "shell_cmd",
      argumentsPreview: "{}",
      at: new Date(),
    };
    await writerFor(h.adapter).updateApprovalCard(
      group,
      { ids: [String(messageId)] },
      { ...base, state: "denied", choice: "deny", decidedBy: { id: "1", name: "Ana" } },
    );
    expect(h.fake.message(groupId, messageId)?.text).toContain("Denied by Ana");
    await writerFor(h.adapter).updateApprovalCard(group, { ids: [String(messageId)] }, { ...base, state: "expired" });
    expect(h.fake.message(groupId, messageId)?.text).toContain("Expired");
    await writerFor(h.adapter).updateApprovalCard(group, { ids: [String(messageId)] }, { ...base, state: "skipped" });
    expect(h.fake.message(groupId, messageId)?.text).toContain("Skipped");
  });

  it("posts cards into forum topics, and posts the outcome anew when the card is gone", async () => {
    h = await harness();
    const topic: ChatRef = { platform: "telegram", channel: String(forumId), thread: "5" };
    const { messageId } = await postCard(topic);
    expect(h.fake.message(forumId, messageId)?.message_thread_id).toBe(5);
    const deleted = h.fake.message(forumId, messageId);
    if (deleted) deleted.deleted = true;
    const recorded: string[][] = [];
    const observer = {
      posted: async (sent: { ids: string[] }) => {
        recorded.push(sent.ids);
      },
    };
    await writerFor(h.adapter).updateApprovalCard(
      topic,
      { ids: [String(messageId)] },
      {
        approvalId: card.approvalId,
        shortId: "7f3a",
        agent: "alice",
        tool: "shell_cmd",
        argumentsPreview: "{}",
        state: "denied",
        decidedBy: { id: "1", name: "Ana" },
        at: new Date(),
      },
      observer,
    );
    const inTopic = h.fake.messagesIn(forumId, 5);
    expect(inTopic.map((message) => message.text.split("\n")[0])).toEqual(["❌ Denied by Ana"]);
    // The new message is told to the world (which records it) the moment it exists.
    expect(recorded).toEqual([inTopic.map((message) => String(message.message_id))]);
    expect(logsMatching(h.lines, /could not be edited; posting the outcome/)).toHaveLength(1);
  });
});
