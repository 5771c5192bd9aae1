import { afterEach, describe, expect, it } from "vitest";
import { approvalsConfigSchema } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { FakeUser, StoredMessage } from "../fakes/telegram-api.js";
import { ana, groupId } from "./helpers.js";
import { boss, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

// A quorum whose cards are routed to approvers' private chats (docs/approvals.md, "Quorum" and
// "Where approval cards go"): the group holds no card, so a vote's progress is drawn on the DMs.

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const carl: FakeUser = { id: 333, is_bot: false, first_name: "Carl" };

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

function cardIn(t: WorldTelegram, chatId: number): StoredMessage {
  const card = t.fake.messagesIn(chatId).find((message) => message.from.is_bot && message.reply_markup !== undefined);
  expect(card, `a card in ${chatId}`).toBeDefined();
  return t.fake.message(chatId, card?.message_id ?? 0) as StoredMessage;
}

function onceData(card: StoredMessage): string {
  const rows = (card.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard;
  const button = rows.flat().find((each) => /Approve once/.test(each.text));
  expect(button).toBeDefined();
  return button?.callback_data ?? "";
}

describe("quorum with cards in approvers' private chats (Telegram)", () => {
  it("route dm, quorum 2: the first vote is drawn on both DM cards, the chat's steps go on, the second vote runs the call once", async () => {
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: {
        approvers: { telegram: [String(boss.id), String(carl.id)] },
        approvals: approvalsConfigSchema.parse({ route: "dm", quorum: { shell_cmd: 2 } }),
      },
      beforeStart: (fake) => {
        fake.addChat({ id: boss.id, type: "private", first_name: "Boss" });
        fake.addChat({ id: carl.id, type: "private", first_name: "Carl" });
      },
    });
    await t.say(ana, "@alice run echo");
    await t.world.waitFor(() => t?.fake.messagesIn(carl.id).length === 1);
    const bossCard = cardIn(t, boss.id);
    expect(bossCard.text).toContain("Approvals: 0 of 2");

    await t.press(boss, bossCard.message_id, onceData(bossCard), boss.id);
    await t.world.waitFor(
      () =>
        (t as WorldTelegram).fake
          .message(carl.id, cardIn(t as WorldTelegram, carl.id).message_id)
          ?.text.includes("1 of 2") === true,
    );
    await t.world.idle();
    expect(cardIn(t, boss.id).text).toContain("Approvals: 1 of 2");
    expect(t.world.logs()).not.toMatch(/has no posted card yet/);

    const carlCard = cardIn(t, carl.id);
    await t.press(carl, carlCard.message_id, onceData(carlCard), carl.id);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    const texts = t.fake
      .messagesIn(groupId)
      .filter((message) => message.from.is_bot)
      .map((message) => message.text);
    expect(texts.at(-1)).toMatch(/^alice: tool said: .*hello/);
    expect(texts.filter((text) => /tool said/.test(text))).toHaveLength(1);
    expect(t.world.logs()).not.toMatch(/has no posted card yet/);
  });
});
