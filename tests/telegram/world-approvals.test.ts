import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { StoredMessage } from "../fakes/telegram-api.js";
import { ana, eve, mainToken } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/** A model that runs `echo hello` once, then answers with what the tool said. */
function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

function cardOf(t: WorldTelegram): { card: StoredMessage; buttons: { text: string; callback_data: string }[] } {
  const cards = t.botMessages().filter((message) => message.reply_markup !== undefined);
  expect(cards).toHaveLength(1);
  const card = cards[0] as StoredMessage;
  return { card, buttons: (card.reply_markup as Keyboard).inline_keyboard.flat() };
}

function buttonData(buttons: { text: string; callback_data: string }[], label: RegExp): string {
  const button = buttons.find((each) => label.test(each.text));
  expect(button).toBeDefined();
  return button?.callback_data ?? "";
}

/** Every call that could change a message in the group. */
function changeCalls(t: WorldTelegram) {
  return [
    ...t.fake.callsTo("editMessageText"),
    ...t.fake.callsTo("editMessageReplyMarkup"),
    ...t.fake.callsTo("deleteMessage"),
  ];
}

describe("an approval in a Telegram group through the world engine", () => {
  it("card with buttons; a stranger's press gets an alert and changes nothing; an approver's press edits the card, runs the tool, posts the answer", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { telegram: [String(boss.id)] } },
    });
    await t.say(ana, "@alice run echo");

    expect(t.botTexts()[0]).toBe("alice: Let me check.");
    const { card, buttons } = cardOf(t);
    expect(card.sentByToken).toBe(mainToken);
    expect(card.text).toContain("alice wants to run shell_cmd");
    expect(card.text).toContain('"echo"');
    expect(buttons.map((button) => button.text)).toEqual([
      "✅ Approve once",
      "🔁 For session",
      "❌ Deny",
      "💬 Deny with reason…",
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval?.state).toBe("pending");
    for (const button of buttons) expect(button.callback_data).toContain(approval?.id);
    const once = buttonData(buttons, /Approve once/);
    expect(alice.requests).toHaveLength(1);

    // Eve is neither the person who asked nor an approver.
    const changesBefore = changeCalls(t).length;
    const refused = await t.press(eve, card.message_id, once);
    expect(t.fake.callbackAnswers.get(refused)).toEqual({
      text: "You are not allowed to decide this approval: only this world's approvers may.",
      show_alert: true,
    });
    expect(changeCalls(t)).toHaveLength(changesBefore);
    expect(t.fake.message(card.chat.id, card.message_id)).toMatchObject({
      editCount: 0,
      reply_markup: card.reply_markup,
    });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);
    expect(t.botMessages()).toHaveLength(2);

    // Boss is one of the world's approvers.
    const decided = await t.press(boss, card.message_id, once);
    expect(t.fake.callbackAnswers.get(decided)).toEqual({ text: "Approved once.", show_alert: false });
    const edited = t.fake.message(card.chat.id, card.message_id);
    expect(edited?.editCount).toBe(1);
    expect(edited?.reply_markup).toBeUndefined();
    expect(edited?.text).toMatch(/^✅ Approved once by Boss\n/);
    expect(edited?.text).toContain("alice · shell_cmd");
    expect(await t.world.store.getApproval(approval?.id ?? "")).toMatchObject({
      state: "approved",
      decidedByName: "Boss",
    });

    // The tool ran and alice's final answer is in the group.
    expect(alice.requests).toHaveLength(2);
    const texts = t.botTexts();
    expect(texts).toHaveLength(3);
    expect(texts[2]).toMatch(/^alice: tool said: exit code: 0 .*hello/);
  });

  it("the person who asked may decide; a later press is answered 'already decided' and changes nothing", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice run echo");
    const { card, buttons } = cardOf(t);

    const first = await t.press(ana, card.message_id, buttonData(buttons, /Approve once/));
    expect(t.fake.callbackAnswers.get(first)).toEqual({ text: "Approved once.", show_alert: false });
    expect(t.fake.message(card.chat.id, card.message_id)?.text).toMatch(/^✅ Approved once by Ana\n/);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: exit code: 0 .*hello/);

    // The old keyboard is gone for clients that saw the edit, but a stale client can still press Deny.
    const changesBefore = changeCalls(t).length;
    const late = await t.press(ana, card.message_id, buttonData(buttons, /Deny/));
    expect(t.fake.callbackAnswers.get(late)).toEqual({
      text: "Already decided by Ana (approved once).",
      show_alert: false,
    });
    expect(changeCalls(t)).toHaveLength(changesBefore);
    expect(alice.requests).toHaveLength(2);
    expect(t.botMessages()).toHaveLength(3);
  });
});
