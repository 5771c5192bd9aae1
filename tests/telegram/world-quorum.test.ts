import { afterEach, describe, expect, it } from "vitest";
import type { FakeUser, StoredMessage } from "../fakes/telegram-api.js";
import { approvalsConfig, echoAgent, echoTheWord } from "../world/approval-world.js";
import { ana, eve } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const carl: FakeUser = { id: 333, is_bot: false, first_name: "Carl" };
const dana: FakeUser = { id: 444, is_bot: false, first_name: "Dana" };

/** The step's text, with what breaks naive HTML, then `echo <word>` for the word after "echo". */
const reasoning = 'I will run <b>echo</b> & check "it" first.';
interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/** The newest card in the group, as a Telegram client shows it now (edits applied). */
function lastCard(t: WorldTelegram): StoredMessage {
  const card = t
    .botMessages()
    .filter((message) => message.text.includes("wants to run"))
    .at(-1);
  expect(card).toBeDefined();
  return t.fake.message(card?.chat.id ?? 0, card?.message_id ?? 0) as StoredMessage;
}

/** A message as the group shows it now. */
function shown(t: WorldTelegram, message: StoredMessage): StoredMessage {
  return t.fake.message(message.chat.id, message.message_id) as StoredMessage;
}

function button(card: StoredMessage, label: RegExp): string {
  const found = ((card.reply_markup as Keyboard | undefined)?.inline_keyboard.flat() ?? []).find((each) =>
    label.test(each.text),
  );
  expect(found, `a button ${label}`).toBeDefined();
  return found?.callback_data ?? "";
}

describe("Quorum on a Telegram card", () => {
  it("shows the step's reasoning above the arguments; needs two approvers besides the requester; shows 1 of 2; a denial denies", async () => {
    t = await worldOnTelegram({
      agents: echoAgent(echoTheWord(reasoning)),
      world: {
        approvers: { telegram: ["requester", String(boss.id), String(carl.id)] },
        approvals: approvalsConfig({ quorum: { shell_cmd: 2 } }),
      },
    });
    await t.say(ana, "@alice run echo hello");
    const card = lastCard(t);
    // Escaped as arguments are: the model's markup shows as text, above the arguments.
    expect(card.text).toContain(reasoning);
    expect(card.text.indexOf(reasoning)).toBeLessThan(card.text.indexOf('"command": "echo"'));
    expect(
      card.entities?.some((entity) => entity.type === "bold" && card.text.slice(entity.offset).startsWith("echo")),
    ).toBe(false);
    expect(card.text).toContain("Approvals: 0 of 2");

    // Ana asked: her press never counts.
    const own = await t.press(ana, card.message_id, button(card, /Approve once/));
    expect(t.fake.callbackAnswers.get(own)?.text).toBe(
      "Your approval does not count: you asked for this call, and 2 other approvers must approve it (0 of 2).",
    );
    // Eve may not decide at all.
    const stranger = await t.press(eve, card.message_id, button(card, /Approve once/));
    expect(t.fake.callbackAnswers.get(stranger)?.text).toMatch(/^You are not allowed to decide this approval/);

    const first = await t.press(boss, card.message_id, button(card, /Approve once/));
    expect(t.fake.callbackAnswers.get(first)?.text).toBe("Counted: 1 of 2: Boss. It runs after 1 more approval.");
    const progress = lastCard(t);
    expect(progress.text).toContain("Approvals: 1 of 2: Boss");
    // Buttons stay until decided; nothing ran.
    expect(button(progress, /Approve once/)).not.toBe("");
    expect((await t.world.store.listApprovals({ chatKey: groupKey }))[0]?.state).toBe("pending");
    const again = await t.press(boss, card.message_id, button(progress, /For session/));
    expect(t.fake.callbackAnswers.get(again)?.text).toBe("You approved already: 1 of 2: Boss.");
    expect(t.botTexts().some((text) => text.startsWith("alice: tool said"))).toBe(false);

    const second = await t.press(carl, card.message_id, button(progress, /Approve once/));
    expect(t.fake.callbackAnswers.get(second)?.text).toBe("Approved once.");
    expect(shown(t, card).text).toMatch(/^✅ Approved once by Boss, Carl\n/);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: exit code: 0 .*hello/);

    // A second call: one approval, then a denial: denied, nothing runs.
    await t.say(ana, "@alice run echo bye");
    const next = lastCard(t);
    expect(next.message_id).not.toBe(card.message_id);
    await t.press(carl, next.message_id, button(next, /Approve once/));
    expect(lastCard(t).text).toContain("Approvals: 1 of 2: Carl");
    const denial = await t.press(boss, next.message_id, button(lastCard(t), /Deny/));
    expect(t.fake.callbackAnswers.get(denial)?.text).toBe("Denied.");
    expect(shown(t, next).text).toMatch(/^❌ Denied by Boss\n/);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: denied by Boss/);
    const results = await t.world.store.listToolResults((await t.world.store.listToolCalls({})).map((call) => call.id));
    expect(results.map((result) => result.kind).sort()).toEqual(["denied", "ok"]);
  });

  it("reminds the approvers once; escalates to the listed person, who may then decide; the card says so; each once", async () => {
    t = await worldOnTelegram({
      agents: echoAgent(echoTheWord(reasoning)),
      world: {
        approvers: { telegram: [String(boss.id)] },
        approvalTimeout: "10m",
        approvals: approvalsConfig({ remind: "1s", escalate: { after: "5s", to: { telegram: [String(dana.id)] } } }),
      },
    });
    await t.say(ana, "@alice run echo hello");
    const card = lastCard(t);
    // Before the escalation Dana may not decide.
    const early = await t.press(dana, card.message_id, button(card, /Approve once/));
    expect(t.fake.callbackAnswers.get(early)?.text).toMatch(/^You are not allowed to decide this approval/);

    await t.world.waitFor(() => t?.botTexts().some((text) => text.startsWith("⏫ Escalated")) ?? false);
    await t.world.idle();
    const texts = t.botTexts();
    const reminders = t.botMessages().filter((message) => message.text.startsWith("⏰ Reminder"));
    expect(reminders).toHaveLength(1);
    const shortId = (await t.world.store.listApprovals({ chatKey: groupKey }))[0]?.shortId;
    expect(reminders[0]?.text).toBe(
      `⏰ Reminder: alice's call of shell_cmd, id ${shortId}, still waits for a decision. 222`,
    );
    // The approver is named as a Telegram mention of that person.
    expect(
      reminders[0]?.entities?.some((entity) => entity.type === "text_mention" || entity.type === "text_link"),
    ).toBe(true);
    expect(texts.filter((text) => text.startsWith("⏫ Escalated"))).toEqual([
      `⏫ Escalated: alice's call of shell_cmd, id ${shortId}, had no decision after 5 seconds; they may decide it now: 444`,
    ]);
    const escalated = lastCard(t);
    expect(escalated.text).toContain("Escalated (no decision in time): 444 may decide it too");

    const pressed = await t.press(dana, card.message_id, button(escalated, /Approve once/));
    expect(t.fake.callbackAnswers.get(pressed)?.text).toBe("Approved once.");
    expect(shown(t, card).text).toMatch(/^✅ Approved once by Dana\n/);
    expect(t.botTexts().filter((text) => text.startsWith("⏰") || text.startsWith("⏫"))).toHaveLength(2);
  });
});
