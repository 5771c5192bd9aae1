/**
 * The Telegram adapter's delivery primitives (src/world/delivery/primitives.ts) on the fake Bot
 * API: one Telegram message per call, the identity decided from the author, the Stop button on
 * live parts, cards from the main bot, drafts as the stream's draft surface.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramPart } from "../../channels/telegram/render.js";
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { DraftSurface } from "../../src/world/delivery/primitives.js";
import type { Author } from "../../src/world/message.js";
import {
  ana,
  aliceToken,
  forumId,
  groupId,
  type Harness,
  harness,
  logsMatching,
  ManualClock,
  mainToken,
} from "./helpers.js";

const group: ChatRef = { platform: "telegram", channel: String(groupId) };
const privateChat: ChatRef = { platform: "telegram", channel: String(ana.id) };
const bob: Author = { kind: "agent", id: "bob", name: "bob" };
const alice: Author = { kind: "agent", id: "alice", name: "alice" };
const system: Author = { kind: "system", id: "roundtable", name: "roundtable" };

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

const card: ApprovalCard = {
  approvalId: "0mfxq2k3a9f3c2e1d0b4a59687c1",
  shortId: "7f3a",
  agent: "alice",
  tool: "shell_cmd",
  argumentsJson: '{"command":"grep"}',
  argumentsPreview: '{\n  "command": "grep"\n}',
  reason: "shell_cmd needs approval",
  requestedFor: "Ana",
  choices: ["once", "deny"],
  expiresAt: new Date("2026-11-23T12:30:00Z"),
};

const outcome: ApprovalOutcome = {
  approvalId: card.approvalId,
  shortId: card.shortId,
  agent: "alice",
  tool: "shell_cmd",
  argumentsPreview: card.argumentsPreview,
  state: "denied",
  choice: "deny",
  decidedBy: { id: "111", name: "Ana" },
  at: new Date("2026-11-23T12:01:00Z"),
};

function draftOf(mode: { kind: string; draft?: DraftSurface<TelegramPart> }): DraftSurface<TelegramPart> {
  if (mode.kind !== "edit" || mode.draft === undefined) throw new Error(`no draft surface in ${mode.kind}`);
  return mode.draft;
}

describe("telegram delivery primitives", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("renders parts with the bold name only where the bot is not the author's own, split under the limit", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    expect(await h.adapter.renderParts(group, { author: bob, text: "The build is **green**." })).toEqual([
      { html: "<b>bob:</b> The build is <b>green</b>.", plain: "bob: The build is **green**." },
    ]);
    expect(await h.adapter.renderParts(group, { author: alice, text: "Mine." })).toEqual([
      { html: "Mine.", plain: "Mine." },
    ]);
    // A private chat belongs to the main bot: alice is named there.
    expect((await h.adapter.renderParts(privateChat, { author: alice, text: "Hi." }))[0]?.html).toBe(
      "<b>alice:</b> Hi.",
    );
    expect((await h.adapter.renderParts(group, { author: system, text: "Notice." }))[0]?.html).toBe("Notice.");
    const long = await h.adapter.renderParts(group, {
      author: bob,
      text: Array.from({ length: 2000 }, (_, index) => `word${index}`).join(" "),
    });
    expect(long.length).toBeGreaterThanOrEqual(3);
    for (const part of long) expect(part.plain.length).toBeLessThanOrEqual(4096);
    expect(h.adapter.samePart(long[0] as TelegramPart, { ...(long[0] as TelegramPart) })).toBe(true);
    expect(h.adapter.samePart(long[0] as TelegramPart, long[1] as TelegramPart)).toBe(false);
  });

  it("sends a part as the author's bot, replying and into topics; a live part carries the Stop button until edited", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const { message } = h.fake.userMessage(mainToken, { chatId: forumId, from: ana, text: "hi", threadId: 9 });
    const topic: ChatRef = { platform: "telegram", channel: String(forumId), thread: "9" };
    const [part] = await h.adapter.renderParts(topic, { author: bob, text: "On it" });
    const id = await h.adapter.sendPart(topic, bob, part as TelegramPart, {
      replyTo: String(message.message_id),
      live: true,
    });
    const stored = h.fake.message(forumId, Number(id));
    expect(stored).toMatchObject({
      text: "bob: On it",
      message_thread_id: 9,
      reply_to_message_id: message.message_id,
      sentByToken: mainToken,
    });
    const buttons = (stored?.reply_markup as Keyboard | undefined)?.inline_keyboard.flat() ?? [];
    expect(buttons.map((button) => button.text)).toEqual(["⏹ Stop"]);
    expect(buttons[0]?.callback_data).toContain("bob");

    const [grown] = await h.adapter.renderParts(topic, { author: bob, text: "On it, done." });
    await h.adapter.editPart(topic, bob, id, grown as TelegramPart, { live: true });
    expect(h.fake.message(forumId, Number(id))?.reply_markup).toEqual(stored?.reply_markup);
    await h.adapter.editPart(topic, bob, id, grown as TelegramPart);
    expect(h.fake.message(forumId, Number(id))).toMatchObject({ text: "bob: On it, done.", editCount: 2 });
    expect(h.fake.message(forumId, Number(id))?.reply_markup).toBeUndefined();
    // Editing to what it already shows is no error (Telegram says "not modified").
    await h.adapter.editPart(topic, bob, id, grown as TelegramPart);
    expect(h.fake.message(forumId, Number(id))?.editCount).toBe(2);

    // An agent's own bot: presses on it are never read, so no Stop button.
    const own = await h.adapter.sendPart(group, alice, { html: "Mine", plain: "Mine" }, { live: true });
    expect(h.fake.message(groupId, Number(own))).toMatchObject({ text: "Mine", sentByToken: aliceToken });
    expect(h.fake.message(groupId, Number(own))?.reply_markup).toBeUndefined();
    // The world's own notice: no Stop button either.
    const notice = await h.adapter.sendPart(group, system, { html: "Notice", plain: "Notice" }, { live: true });
    expect(h.fake.message(groupId, Number(notice))?.reply_markup).toBeUndefined();
  });

  it("deletes a part through the bot that posted it; one already gone is no error", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const id = await h.adapter.sendPart(group, alice, { html: "Draft", plain: "Draft" });
    await h.adapter.deletePart(group, alice, id);
    expect(h.fake.messagesIn(groupId)).toHaveLength(0);
    expect(h.fake.callsTo("deleteMessage", aliceToken)).toHaveLength(1);
    await h.adapter.deletePart(group, alice, id);
    expect(h.fake.callsTo("deleteMessage", aliceToken).map((call) => call.ok)).toEqual([true, false]);
    expect(logsMatching(h.lines, /already gone/)).toHaveLength(1);
  });

  it("sends a card from the main bot; arguments too long for it are attached only when the world asks", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const short = await h.adapter.sendCard(group, card);
    expect(short.attach).toBeUndefined();
    const shown = h.fake.message(groupId, Number(short.id));
    expect(shown?.from.username).toBe("roundtable_bot");
    expect((shown?.reply_markup as Keyboard | undefined)?.inline_keyboard.flat().map((button) => button.text)).toEqual([
      "✅ Approve once",
      "❌ Deny",
    ]);

    const whole = JSON.stringify({ command: "echo", args: ["x".repeat(5000)] });
    const long = await h.adapter.sendCard(group, {
      ...card,
      argumentsJson: whole,
      argumentsPreview: `${whole.slice(0, 200)}…`,
    });
    expect(h.fake.callsTo("sendDocument")).toHaveLength(0);
    await long.attach?.();
    const [document] = h.fake.callsTo("sendDocument");
    expect(document?.ok).toBe(true);
    const file = h.fake.messagesIn(groupId).find((message) => message.document !== undefined);
    expect(file).toMatchObject({
      reply_to_message_id: Number(long.id),
      text: "Arguments of shell_cmd, id 7f3a, in full",
    });
    expect(file?.document?.content).toContain("x".repeat(5000));
  });

  it("edits a card to its outcome without buttons, and says `gone` when it cannot be edited", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    const { id } = await h.adapter.sendCard(group, card);
    expect(await h.adapter.editCard(group, id, outcome)).toBe("edited");
    const edited = h.fake.message(groupId, Number(id));
    expect(edited?.text.split("\n")[0]).toBe("❌ Denied by Ana");
    expect(edited?.reply_markup).toBeUndefined();
    // Delivered twice: "not modified" is fine.
    expect(await h.adapter.editCard(group, id, outcome)).toBe("edited");

    const gone = h.fake.message(groupId, Number(id));
    if (gone) gone.deleted = true;
    expect(await h.adapter.editCard(group, id, outcome)).toBe("gone");
    expect(await h.adapter.editCard(group, "not-a-number", outcome)).toBe("gone");
    expect(logsMatching(h.lines, /could not be edited; posting the outcome/)).toHaveLength(2);
    const part = await h.adapter.renderOutcome(group, outcome);
    expect(part.plain.split("\n")[0]).toBe("❌ Denied by Ana");
    const posted = await h.adapter.sendPart(group, system, part);
    expect(h.fake.message(groupId, Number(posted))?.text).toBe(edited?.text);
  });

  it("streams by edits paced per bot and chat, with drafts in private chats only", async () => {
    h = await harness({ agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const inGroup = h.adapter.streamMode(group, bob);
    expect(inGroup).toMatchObject({ kind: "edit", intervalMs: 3000 });
    expect(inGroup).not.toHaveProperty("draft");
    const ownBot = h.adapter.streamMode(group, alice);
    expect(ownBot).toMatchObject({ kind: "edit", intervalMs: 3000 });
    // Each bot has its own budget in a chat; every stream of one bot in the chat shares one.
    expect(ownBot.kind === "edit" && inGroup.kind === "edit" && ownBot.paceKey !== inGroup.paceKey).toBe(true);
    expect(h.adapter.streamMode(group, system)).toMatchObject({ paceKey: (inGroup as { paceKey: string }).paceKey });
    // The Stop button rides only on the main bot's messages of an agent's answer.
    expect(inGroup).toMatchObject({ liveControls: true });
    expect(ownBot).not.toHaveProperty("liveControls");
    expect(h.adapter.streamMode(group, system)).not.toHaveProperty("liveControls");
    const inPrivate = h.adapter.streamMode(privateChat, bob);
    expect(inPrivate).toMatchObject({ kind: "edit", intervalMs: 1000 });
    expect(h.makeAdapter({ drafts: false }).streamMode(privateChat, bob)).not.toHaveProperty("draft");

    // One draft id per stream; the same part is not shown twice.
    const draft = draftOf(inPrivate);
    const [first] = await h.adapter.renderParts(privateChat, { author: bob, text: "Thinking" });
    await draft.show(first as TelegramPart);
    await draft.show(first as TelegramPart);
    await draft.show({ html: "<b>bob:</b> Thinking more", plain: "bob: Thinking more" });
    const calls = h.fake.callsTo("sendMessageDraft", mainToken);
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((call) => call.params.draft_id)).size).toBe(1);
    expect(h.fake.drafts.map((each) => each.text)).toEqual(["bob: Thinking", "bob: Thinking more"]);
    const other = draftOf(h.adapter.streamMode(privateChat, bob));
    await other.show(first as TelegramPart);
    expect(h.fake.callsTo("sendMessageDraft")[2]?.params.draft_id).not.toBe(calls[0]?.params.draft_id);
    expect(h.fake.callsTo("sendMessage")).toHaveLength(0);
  });

  it("a server without drafts: show throws, and later streams of that bot ask for none", async () => {
    h = await harness();
    h.fake.draftsSupported = false;
    await h.adapter.start(h.sink);
    const draft = draftOf(h.adapter.streamMode(privateChat, bob));
    await expect(draft.show({ html: "Hi", plain: "Hi" })).rejects.toThrow(/sendMessageDraft/);
    expect(h.adapter.streamMode(privateChat, bob)).not.toHaveProperty("draft");
  });

  it("typing waits for room in the chat's budget after a change, and is not counted in it", async () => {
    const clock = new ManualClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    await h.adapter.showWorking(group, bob);
    await h.adapter.showWorking(group, bob);
    expect(h.fake.callsTo("sendChatAction")).toHaveLength(2);
    await h.adapter.sendPart(group, bob, { html: "Hi", plain: "Hi" });
    await h.adapter.showWorking(group, bob);
    expect(h.fake.callsTo("sendChatAction")).toHaveLength(2);
    clock.advance(3000);
    await h.adapter.showWorking(group, bob);
    expect(h.fake.callsTo("sendChatAction")).toHaveLength(3);
  });
});
