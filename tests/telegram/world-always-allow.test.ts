import { afterEach, describe, expect, it } from "vitest";
import type { FakeUser, StoredMessage } from "../fakes/telegram-api.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { approvalsConfig, echoAgent, echoTheWord } from "../world/approval-world.js";
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

/** Every card posted in the group (decided ones are edited, so counted by what was sent). */
function cards(t: WorldTelegram): unknown[] {
  return t.fake.callsTo("sendMessage").filter((call) => JSON.stringify(call).includes("wants to run"));
}

/** The pending card: the last message that still has buttons. */
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

/** One clock for the world, moved by the test (the queue keeps real time). */
function movableClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
}

const day = 24 * 3_600_000;

function options(extra: Partial<WorldTelegramOptions> = {}): WorldTelegramOptions {
  return {
    agents: echoAgent(echoTheWord()),
    world: {
      approvers: { telegram: ["requester", String(boss.id)] },
      approvals: approvalsConfig({ allowAlways: true, allowAlwaysFor: "2d" }),
    },
    ...extra,
  };
}

async function ask(t: WorldTelegram, who: FakeUser, word: string): Promise<void> {
  await t.say(who, `@alice run echo ${word}`);
}

describe("Always allow from a Telegram card", () => {
  it("offers the button; a requester-only decider is refused; Boss's press runs the call and stores a rule; the same call then runs with no card, other arguments get one; revoked and expired rules stop matching", async () => {
    const clock = movableClock();
    t = await worldOnTelegram(options({ worldClock: clock.now }));
    await ask(t, ana, "hello");
    const first = lastCard(t);
    expect(first.buttons.map((button) => button.text)).toEqual([
      "✅ Approve once",
      "🔁 For session",
      "♾ Always allow",
      "❌ Deny",
      "💬 Deny with reason…",
    ]);
    const always = dataOf(first.buttons, /Always allow/);

    // Ana may decide (she asked) but is not listed by id: no rule, nothing decided.
    const refused = await t.press(ana, first.card.message_id, always);
    expect(t.fake.callbackAnswers.get(refused)).toEqual({
      text: "You are not allowed to always allow this call: only approvers listed by id may; nothing was decided.",
      show_alert: true,
    });
    expect((await t.world.store.listApprovals({ chatKey: groupKey }))[0]?.state).toBe("pending");
    // Eve may not decide at all: the usual refusal.
    const stranger = await t.press(eve, first.card.message_id, always);
    expect(t.fake.callbackAnswers.get(stranger)?.text).toMatch(/^You are not allowed to decide this approval/);
    expect(await t.world.store.listStoredRules({})).toEqual([]);

    const pressed = await t.press(boss, first.card.message_id, always);
    const [rule] = await t.world.store.listStoredRules({});
    expect(rule).toMatchObject({
      world: "main",
      agent: "alice",
      tool: "shell_cmd",
      author: { id: String(boss.id), name: "Boss", platform: "telegram" },
      useCount: 0,
    });
    expect(JSON.parse(rule?.argumentsJson ?? "")).toEqual({ command: "echo", args: ["hello"] });
    expect(rule?.expiresAt.getTime()).toBe((rule?.createdAt.getTime() ?? 0) + 2 * day);
    expect(t.fake.callbackAnswers.get(pressed)?.text).toMatch(
      new RegExp(`^Always allowed: rule ${rule?.id}, until .* UTC\\. This call runs now\\.$`),
    );
    expect(t.fake.message(first.card.chat.id, first.card.message_id)?.text).toMatch(/^✅ Always allowed by Boss\n/);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: exit code: 0 .*hello/);
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval).toMatchObject({ state: "approved", choice: "always", decidedByName: "Boss" });
    expect(rule?.sourceApprovalId).toBe(approval?.id);

    // The same call again: no card, it runs, the use is counted.
    await ask(t, ana, "hello");
    expect(cards(t)).toHaveLength(1);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: exit code: 0 .*hello/);
    expect((await t.world.store.getStoredRule(rule?.id ?? ""))?.useCount).toBe(1);

    // Other arguments: a card.
    await ask(t, ana, "bye");
    expect(cards(t)).toHaveLength(2);
    await t.press(boss, lastCard(t).card.message_id, dataOf(lastCard(t).buttons, /Approve once/));

    // /rules lists it; Ana (no approver by id, and `requester` is nobody's here) may not revoke it.
    await t.say(ana, "/rules");
    const listed = t.botTexts().at(-1) ?? "";
    expect(listed).toContain(
      `1. ${rule?.id} · alice · shell_cmd {"command":"echo","args":["hello"]} · by Boss (telegram)`,
    );
    expect(listed).toContain("used 1 time");
    await t.say(eve, `/rules revoke ${rule?.id}`);
    expect((await t.world.store.getStoredRule(rule?.id ?? ""))?.revokedAt).toBeUndefined();
    await t.say(boss, `/rules revoke ${rule?.id}`);
    expect(t.botTexts().at(-1)).toBe(
      `Rule ${rule?.id} revoked by Boss: alice's shell_cmd with these arguments asks again.`,
    );
    await ask(t, ana, "hello");
    expect(cards(t)).toHaveLength(3);

    // A fresh rule, then past its expiry: a card again.
    await t.press(boss, lastCard(t).card.message_id, dataOf(lastCard(t).buttons, /Always allow/));
    await ask(t, ana, "hello");
    expect(cards(t)).toHaveLength(3);
    clock.advance(2 * day + 1000);
    await ask(t, ana, "hello");
    expect(cards(t)).toHaveLength(4);
    await t.say(ana, "/rules");
    expect(t.botTexts().at(-1)).toContain("No stored rules match in this world.");
  });

  it("is never offered where deciders qualify only as requester (or a role), and a forged press is refused", async () => {
    t = await worldOnTelegram(
      options({
        world: {
          approvers: { telegram: ["requester", "admins"] },
          approvals: approvalsConfig({ allowAlways: true }),
        },
      }),
    );
    await ask(t, ana, "hello");
    const { card, buttons } = lastCard(t);
    expect(buttons.map((button) => button.text)).toEqual([
      "✅ Approve once",
      "🔁 For session",
      "❌ Deny",
      "💬 Deny with reason…",
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    const forged = await t.press(ana, card.message_id, `ap:${approval?.id}:a`);
    expect(t.fake.callbackAnswers.get(forged)?.text).toBe(
      "You are not allowed to always allow this call: only approvers listed by id may; nothing was decided.",
    );
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");
    expect(await t.world.store.listStoredRules({})).toEqual([]);
  });

  it("is not offered when allowAlways is off", async () => {
    t = await worldOnTelegram(options({ world: { approvers: { telegram: [String(boss.id)] } } }));
    await ask(t, ana, "hello");
    expect(lastCard(t).buttons.map((button) => button.text)).not.toContain("♾ Always allow");
  });

  it("a stored rule survives a restart; a configured deny rule beats it", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    t = await worldOnTelegram(options({ databaseUrl, keepDatabase: true }));
    await ask(t, ana, "hello");
    await t.press(boss, lastCard(t).card.message_id, dataOf(lastCard(t).buttons, /Always allow/));
    expect(await t.world.store.listStoredRules({})).toHaveLength(1);
    await t.close();

    // After a restart (in another chat of the world: the fake's message ids start again, and
    // the stored ones would be taken as duplicates): the same call runs without a card.
    const inChat = (id: number) => ({
      beforeStart: (fake: WorldTelegram["fake"]) => fake.addChat({ id, type: "supergroup", title: `Chat ${id}` }),
    });
    const botTextsIn = (id: number) =>
      t?.fake
        .messagesIn(id)
        .filter((message) => message.from.is_bot)
        .map((message) => message.text) ?? [];
    t = await worldOnTelegram(options({ databaseUrl, keepDatabase: true, ...inChat(-1009991) }));
    await t.say(ana, "@alice run echo hello", { chatId: -1009991 });
    expect(cards(t)).toHaveLength(0);
    expect(botTextsIn(-1009991).at(-1)).toMatch(/^alice: tool said: exit code: 0 .*hello/);
    await t.close();

    // With a configured deny rule for echo: blocked, no card, the rule not used.
    t = await worldOnTelegram(
      options({
        databaseUrl,
        ...inChat(-1009992),
        tools: { rules: [{ tool: "shell_cmd", action: "deny", match: { command: "^echo$" } }] },
      }),
    );
    await t.say(ana, "@alice run echo hello", { chatId: -1009992 });
    expect(cards(t)).toHaveLength(0);
    expect(botTextsIn(-1009992).at(-1)).toMatch(/^alice: tool said: blocked: blocked by rule 1/);
    expect((await t.world.store.listStoredRules({}))[0]?.useCount).toBe(1);
  });
});
