import { afterEach, describe, expect, it } from "vitest";
import { approvalsConfigSchema } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { FakeUser, StoredMessage } from "../fakes/telegram-api.js";
import { ana, eve, groupId } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

// Cards routed to approvers' private chats (docs/approvals.md, "Where approval cards go").

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Listed as an approver, but never started the bot: Telegram refuses to write to them. */
const stranger: FakeUser = { id: 333, is_bot: false, first_name: "Sam" };

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

/** The world's log lines whose message matches. */
function worldLogs(t: WorldTelegram, pattern: RegExp): Record<string, unknown>[] {
  return t.world
    .logs()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => pattern.test(String(line.msg)));
}

function cardsIn(t: WorldTelegram, chatId: number): StoredMessage[] {
  return t.fake.messagesIn(chatId).filter((message) => message.from.is_bot && message.reply_markup !== undefined);
}

function onceData(card: StoredMessage): string {
  const rows = (card.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard;
  const button = rows.flat().find((each) => /Approve once/.test(each.text));
  expect(button).toBeDefined();
  return button?.callback_data ?? "";
}

function botTextsIn(t: WorldTelegram, chatId: number): string[] {
  return t.fake
    .messagesIn(chatId)
    .filter((message) => message.from.is_bot)
    .map((message) => message.text);
}

describe("approval cards routed to Telegram private chats", () => {
  it("route dm: the card goes to the approver who started the bot, the group gets one line, one who never started it is skipped; the DM press runs the call", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: {
        approvers: { telegram: [String(boss.id), String(stranger.id)] },
        approvals: approvalsConfigSchema.parse({ route: "dm" }),
      },
      beforeStart: (fake) => fake.addChat({ id: boss.id, type: "private", first_name: "Boss" }),
    });
    await t.say(ana, "@alice run echo");

    expect(cardsIn(t, groupId)).toHaveLength(0);
    expect(botTextsIn(t, groupId)).toContain("alice waits for approval of shell_cmd (asked privately)");
    const [card] = cardsIn(t, boss.id);
    expect(card?.text).toContain("alice wants to run shell_cmd");
    const skipped = worldLogs(t, /copy is skipped/);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ chat: `telegram::${stranger.id}:`, copy: "dm" });
    const copies = await t.world.store.listCardCopies((card && onceData(card).split(":")[1]) ?? "");
    expect(copies.map((copy) => [copy.kind, copy.personId, copy.state])).toEqual([
      ["dm", String(boss.id), "open"],
      ["dm", String(stranger.id), "unreachable"],
    ]);
    expect(alice.requests).toHaveLength(1);

    await t.press(boss, card?.message_id ?? 0, onceData(card as StoredMessage), boss.id);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    expect(t.fake.message(boss.id, card?.message_id ?? 0)?.text).toContain("Approved once by Boss in a direct message");
    expect(botTextsIn(t, groupId).at(-1)).toMatch(/^alice: tool said: .*hello/);
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval).toMatchObject({ state: "approved", decidedById: String(boss.id) });
  });

  it("route dm: nobody could be reached, so the card falls back to the group, where the listed approver decides", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: {
        approvers: { telegram: [String(stranger.id)] },
        approvals: approvalsConfigSchema.parse({ route: "dm" }),
      },
    });
    await t.say(ana, "@alice run echo");
    await t.world.waitFor(() => cardsIn(t as WorldTelegram, groupId).length === 1);
    await t.world.idle();

    expect(worldLogs(t, /falls back to the chat/)).toHaveLength(1);
    const [card] = cardsIn(t, groupId);
    const refused = await t.press(eve, card?.message_id ?? 0, onceData(card as StoredMessage));
    expect(t.fake.callbackAnswers.get(refused)?.text).toMatch(/not allowed/);
    await t.press(stranger, card?.message_id ?? 0, onceData(card as StoredMessage));
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    expect(t.fake.message(groupId, card?.message_id ?? 0)?.text).toContain("Approved once by Sam in the chat");
    expect(botTextsIn(t, groupId).at(-1)).toMatch(/^alice: tool said: .*hello/);
  });

  it("route both: the group's card and the DM's close each other; a later press on the other copy decides nothing and the call ran once", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { telegram: [String(boss.id)] }, approvals: approvalsConfigSchema.parse({ route: "both" }) },
      beforeStart: (fake) => fake.addChat({ id: boss.id, type: "private", first_name: "Boss" }),
    });
    await t.say(ana, "@alice run echo");
    const [inGroup] = cardsIn(t, groupId);
    const [inDm] = cardsIn(t, boss.id);
    expect(inGroup && inDm).toBeDefined();
    expect(botTextsIn(t, groupId)).not.toContain("alice waits for approval of shell_cmd (asked privately)");
    const dmOnce = onceData(inDm as StoredMessage);

    await t.press(boss, inGroup?.message_id ?? 0, onceData(inGroup as StoredMessage));
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    expect(t.fake.message(groupId, inGroup?.message_id ?? 0)?.text).toContain("Approved once by Boss in the chat");
    expect(t.fake.message(boss.id, inDm?.message_id ?? 0)?.text).toContain("Approved once by Boss in the chat");

    const late = await t.press(boss, inDm?.message_id ?? 0, dmOnce, boss.id);
    expect(t.fake.callbackAnswers.get(late)?.text).toMatch(/^Already decided by Boss/);
    await t.world.idle();
    expect(alice.requests).toHaveLength(2);
    expect(botTextsIn(t, groupId).filter((text) => /^alice: tool said: .*hello/.test(text))).toHaveLength(1);
  });
  it("route both: a press on the DM's copy closes the group's card too, naming the DM", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { telegram: [String(boss.id)] }, approvals: approvalsConfigSchema.parse({ route: "both" }) },
      beforeStart: (fake) => fake.addChat({ id: boss.id, type: "private", first_name: "Boss" }),
    });
    await t.say(ana, "@alice run echo");
    const [inGroup] = cardsIn(t, groupId);
    const [inDm] = cardsIn(t, boss.id);
    const groupOnce = onceData(inGroup as StoredMessage);

    await t.press(boss, inDm?.message_id ?? 0, onceData(inDm as StoredMessage), boss.id);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    const words = "Approved once by Boss in a direct message";
    expect(t.fake.message(boss.id, inDm?.message_id ?? 0)?.text).toContain(words);
    expect(t.fake.message(groupId, inGroup?.message_id ?? 0)?.text).toContain(words);
    const late = await t.press(boss, inGroup?.message_id ?? 0, groupOnce);
    expect(t.fake.callbackAnswers.get(late)?.text).toMatch(/^Already decided by Boss/);
    await t.world.idle();
    expect(alice.requests).toHaveLength(2);
  });

  it("route dm + remind: the approver's DM gets the reminder once, the group none; route both: both get it", async () => {
    const reminders = (chatId: number) =>
      botTextsIn(t as WorldTelegram, chatId).filter((text) => text.startsWith("⏰ Reminder"));
    for (const route of ["dm", "both"] as const) {
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
        world: {
          approvers: { telegram: [String(boss.id), String(stranger.id)] },
          approvalTimeout: "10m",
          approvals: { route, remind: "1s" } as never,
        },
        beforeStart: (fake) => fake.addChat({ id: boss.id, type: "private", first_name: "Boss" }),
      });
      await t.say(ana, "@alice run echo");
      await t.world.waitFor(() => reminders(boss.id).length > 0);
      await t.world.idle();
      const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
      const what = `alice's call of shell_cmd, id ${approval?.shortId}`;
      expect(reminders(boss.id), route).toEqual([`⏰ Reminder: ${what}, still waits for your decision.`]);
      // The stranger's copy was never shown: no reminder is tried there.
      expect(t.fake.messagesIn(stranger.id), route).toHaveLength(0);
      if (route === "dm") {
        expect(reminders(groupId)).toEqual([]);
        expect(botTextsIn(t, groupId).filter((text) => text.includes("222"))).toEqual([]);
      } else {
        expect(reminders(groupId)).toEqual([`⏰ Reminder: ${what}, still waits for a decision. 222 333`]);
      }
      // Stored under a fixed id per place before it was shown: a second run shows nothing more.
      const dmKey = `telegram::${boss.id}:`;
      expect(await t.world.store.getMessage(`remind:${approval?.id}@${dmKey}`)).toBeDefined();
      expect(approval?.state).toBe("pending");
      await t.close();
      t = undefined;
    }
  });
});
