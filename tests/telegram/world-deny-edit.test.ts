import { afterEach, describe, expect, it } from "vitest";
import type { StoredMessage } from "../fakes/telegram-api.js";
import { approvalsConfig, echoAgent, echoWhenAsked } from "../world/approval-world.js";
import { ana, eve } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, type WorldTelegramOptions, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

function cards(t: WorldTelegram): unknown[] {
  return t.fake
    .callsTo("sendMessage")
    .filter((call) => String((call as { params?: { text?: unknown } }).params?.text ?? "").includes("wants to run"));
}

function lastCard(t: WorldTelegram): { card: StoredMessage; buttons: { text: string; callback_data: string }[] } {
  const card = t
    .botMessages()
    .filter((message) => message.reply_markup !== undefined && message.text.includes("wants to run"))
    .at(-1);
  expect(card).toBeDefined();
  const markup = (card as StoredMessage).reply_markup as Keyboard | undefined;
  return { card: card as StoredMessage, buttons: markup?.inline_keyboard.flat() ?? [] };
}

function dataOf(buttons: { text: string; callback_data: string }[], label: RegExp): string {
  const button = buttons.find((each) => label.test(each.text));
  expect(button, `a button ${label}`).toBeDefined();
  return button?.callback_data ?? "";
}

/** The prompt the bot posted last (a force_reply message). */
function lastPrompt(t: WorldTelegram): StoredMessage {
  const prompt = t
    .botMessages()
    .filter((message) => JSON.stringify(message.reply_markup ?? {}).includes("force_reply"))
    .at(-1);
  expect(prompt, "a force_reply prompt").toBeDefined();
  return prompt as StoredMessage;
}

function options(toolTexts: string[], approvals: Record<string, unknown> = {}): WorldTelegramOptions {
  return {
    agents: echoAgent(echoWhenAsked(toolTexts)),
    world: {
      approvers: { telegram: ["requester", String(boss.id)] },
      approvals: approvalsConfig(approvals),
    },
  };
}

describe("Deny with a reason and edit on a Telegram card", () => {
  it("takes only the presser's reply to the prompt as the reason, tells the model verbatim, and denies the same call again without a card until /reset", async () => {
    const toolTexts: string[] = [];
    t = await worldOnTelegram(options(toolTexts));
    await t.say(ana, "@alice run echo hello");
    const first = lastCard(t);
    expect(first.buttons.map((button) => button.text)).toEqual([
      "✅ Approve once",
      "🔁 For session",
      "❌ Deny",
      "💬 Deny with reason…",
    ]);
    const asked = await t.press(boss, first.card.message_id, dataOf(first.buttons, /Deny with reason/));
    expect(t.fake.callbackAnswers.get(asked)).toEqual({
      text: "Reply to my message with your reason.",
      show_alert: false,
    });
    const prompt = lastPrompt(t);
    expect(prompt.text).toBe("Boss, reply to this message with your reason for denying this call.");
    expect(prompt.reply_markup).toMatchObject({ force_reply: true, selective: true });

    // Someone else's reply to the prompt is an ordinary message, not the reason.
    await t.say(eve, "ship it anyway", { replyTo: prompt.message_id });
    expect((await t.world.store.listApprovals({ chatKey: groupKey }))[0]?.state).toBe("pending");

    await t.say(boss, "not on fridays", { replyTo: prompt.message_id });
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval).toMatchObject({ state: "denied", choice: "deny", decidedByName: "Boss" });
    expect(toolTexts).toEqual(["denied by Boss: not on fridays"]);
    expect(t.fake.message(first.card.chat.id, first.card.message_id)?.text).toMatch(
      /^❌ Denied by Boss: not on fridays\n/,
    );
    expect((await t.world.store.listApprovalChanges(approval?.id ?? "")).at(-1)?.note).toBe("not on fridays");

    // The same call again: denied at once, no card.
    await t.say(ana, "@alice run echo hello");
    expect(cards(t)).toHaveLength(1);
    expect(toolTexts.at(-1)).toBe("denied: the same call was denied by Boss (not on fridays)");
    // Other arguments still ask.
    await t.say(ana, "@alice run echo bye");
    expect(cards(t)).toHaveLength(2);
    await t.press(boss, lastCard(t).card.message_id, dataOf(lastCard(t).buttons, /^❌ Deny$/));
    expect(toolTexts.at(-1)).toBe("denied by Boss");

    // After /reset the denial is over: a card again.
    await t.say(boss, "/reset");
    await t.say(ana, "@alice run echo hello");
    expect(cards(t)).toHaveLength(3);
  });

  it("has no Edit button when approvals.edit is off; with it on, an invalid edit is refused privately and a valid one runs, noted to the model", async () => {
    const toolTexts: string[] = [];
    t = await worldOnTelegram(options(toolTexts, { edit: true }));
    t.fake.addChat({ id: boss.id, type: "private", first_name: "Boss" });
    await t.say(ana, "@alice run echo hello");
    const first = lastCard(t);
    expect(first.buttons.map((button) => button.text)).toEqual([
      "✅ Approve once",
      "🔁 For session",
      "❌ Deny",
      "💬 Deny with reason…",
      "✏️ Edit…",
    ]);
    await t.press(boss, first.card.message_id, dataOf(first.buttons, /Edit/));
    const prompt = lastPrompt(t);
    expect(prompt.text).toContain("reply to this message with the arguments as JSON");
    expect(JSON.parse(prompt.text.slice(prompt.text.indexOf("{")))).toEqual({ command: "echo", args: ["hello"] });

    await t.say(boss, '{"command": 5}', { replyTo: prompt.message_id });
    expect((await t.world.store.listApprovals({ chatKey: groupKey }))[0]?.state).toBe("pending");
    const privately = t.fake.messagesIn(boss.id).filter((message) => message.from.is_bot);
    expect(privately.map((message) => message.text)).toEqual([
      expect.stringMatching(/^That edit does not fit shell_cmd: .*Nothing changed\.$/),
    ]);
    expect(t.botTexts().some((text) => text.includes("does not fit"))).toBe(false);

    await t.say(boss, '{"command": "echo", "args": ["edited"]}', { replyTo: prompt.message_id });
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval).toMatchObject({
      state: "approved",
      choice: "edit",
      editedArgumentsJson: '{"command":"echo","args":["edited"]}',
    });
    const call = await t.world.store.getToolCall(approval?.toolCallId ?? "");
    expect(JSON.parse(call?.argumentsJson ?? "")).toEqual({ command: "echo", args: ["hello"] });
    expect(toolTexts.at(-1)).toMatch(
      /^note: Boss edited the arguments before it ran: \{"command":"echo","args":\["edited"\]\}\nexit code: 0[\s\S]*edited/,
    );
    const card = t.fake.message(first.card.chat.id, first.card.message_id)?.text ?? "";
    expect(card).toMatch(/^✅ Approved once, edited by Boss\n/);
    expect(card).toContain('"edited"');
  });

  it("offers no Edit button when approvals.edit is off", async () => {
    t = await worldOnTelegram(options([], { edit: false }));
    await t.say(ana, "@alice run echo hello");
    expect(lastCard(t).buttons.some((button) => /Edit/.test(button.text))).toBe(false);
  });
});
