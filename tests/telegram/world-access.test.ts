import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { StoredMessage } from "../fakes/telegram-api.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { ana, eve, groupId } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/** `@alice echo X` makes alice run `echo X`; after the tool she says what it printed. */
function echoer() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    const word = /echo (\w+)/.exec(last?.text ?? "")?.[1] ?? "hello";
    return { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

/** Approval cards in the order posted (the fake keeps edited messages in place). */
async function cards(t: WorldTelegram): Promise<StoredMessage[]> {
  const ids = new Set<number>();
  for (const approval of await t.world.store.listApprovals({ chatKey: groupKey })) {
    const posted = await t.world.store.getOutbound("approval", approval.id);
    for (const id of posted?.platformMessageIds ?? []) ids.add(Number(id));
  }
  return t.botMessages().filter((message) => ids.has(message.message_id));
}

function button(card: StoredMessage | undefined, label: RegExp): string {
  const found = (card?.reply_markup as Keyboard | undefined)?.inline_keyboard
    .flat()
    .find((each) => label.test(each.text));
  expect(found).toBeDefined();
  return found?.callback_data ?? "";
}

describe("access on Telegram through the world engine", () => {
  it("a stranger in a catch-all-bound chat cannot approve their own call when approvers are listed, and is told why", async () => {
    const alice = echoer();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { telegram: [String(boss.id)] } },
    });
    await t.say(eve, "@alice echo pwned");
    const card = (await cards(t))[0];
    const pressed = await t.press(eve, card?.message_id ?? 0, button(card, /Approve once/));
    expect(t.fake.callbackAnswers.get(pressed)).toEqual({
      text: "You are not allowed to decide this approval: only this world's approvers may.",
      show_alert: true,
    });
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);
  });

  it("a stranger's own group reached through the catch-all: as its creator they are no admin of ours; `@alice run id` approved by themselves runs nothing", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
      return { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "id" } }] };
    });
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { telegram: ["admins"] }, members: { telegram: ["*"] } },
      chats: { [String(groupId)]: "main", "*": "main" },
    });
    const theirs = -100999;
    t.fake.addChat({ id: theirs, type: "supergroup", title: "Eve's group" });
    t.fake.setMemberStatus(theirs, eve.id, "creator");
    await t.say(eve, "@alice run id", { chatId: theirs });
    const theirKey = chatKey({ platform: "telegram", channel: String(theirs) });
    const [approval] = await t.world.store.listApprovals({ chatKey: theirKey });
    const posted = await t.world.store.getOutbound("approval", approval?.id ?? "");
    const card = t.fake
      .messagesIn(theirs)
      .find((message) => String(message.message_id) === posted?.platformMessageIds[0]);
    const pressed = await t.press(eve, card?.message_id ?? 0, button(card, /Approve once/), theirs);
    expect(t.fake.callbackAnswers.get(pressed)).toEqual({
      text: "You are not allowed to decide this approval: only this world's approvers may.",
      show_alert: true,
    });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);
    expect(
      t.fake
        .messagesIn(theirs)
        .map((message) => message.text)
        .join("\n"),
    ).not.toContain("uid=");

    // In the group the owner bound by id, its administrator decides as before.
    t.fake.setMemberStatus(groupId, boss.id, "administrator");
    await t.say(ana, "@alice run id");
    const ours = (await cards(t))[0];
    await t.press(boss, ours?.message_id ?? 0, button(ours, /Approve once/));
    await t.world.waitFor(() => alice.requests.length === 3);
    await t.world.idle();
    expect(t.botTexts().at(-1)).toContain("uid=");
  });

  it("a new message to a parked agent supersedes only the writer's own parked turn: the card says who wrote to whom; another person's stays parked", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "user" && last.text.includes("never mind")) return { text: "Understood." };
      const word = /echo (\w+)/.exec(last?.role === "user" ? last.text : "")?.[1] ?? "x";
      return { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
    });
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice echo anas");
    await t.say(eve, "@alice echo eves");
    const approvals = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approvals.map((approval) => approval.state)).toEqual(["pending", "pending"]);
    const [anas, eves] = await cards(t);

    // Eve wrote to alice after Ana: Ana's card still has its buttons (Eve may not decide it).
    expect(button(anas, /Approve once/)).not.toBe("");

    await t.say(ana, "@alice never mind");
    const after = await t.world.store.listApprovals({ chatKey: groupKey });
    const byRequester = new Map(after.map((approval) => [approval.requestedFor, approval.state]));
    expect(byRequester.get(String(ana.id))).toBe("skipped");
    expect(byRequester.get(String(eve.id))).toBe("pending");
    const anasCard = t.fake.messagesIn(groupId).find((message) => message.message_id === anas?.message_id);
    expect(anasCard?.text.split("\n")[0]).toBe("⏭ Skipped: Ana wrote to alice again");
    const evesCard = t.fake.messagesIn(groupId).find((message) => message.message_id === eves?.message_id);
    expect(evesCard?.text).toContain("eves");
    expect(button(evesCard, /Approve once/)).not.toBe("");
    expect(t.botTexts().at(-1)).toBe("alice: Understood.");
  });

  it("invisible characters in the arguments show on the card as escapes, with a line saying so", async () => {
    const alice = new ScriptedProvider(() => ({
      text: "",
      toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["/tmp/\u202Ehs.gnp\u200B"] } }],
    }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice echo it");
    const [card] = await cards(t);
    expect(card?.text).toContain("/tmp/\\u202ehs.gnp\\u200b");
    expect(card?.text).not.toMatch(/[\u202E\u200B]/);
    expect(card?.text).toContain("The arguments contain invisible characters");
  });

  it("messages of non-members and of people past their rate are stored without their raw payload", async () => {
    const alice = new ScriptedProvider(() => ({ text: "yes?" }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice", members: { telegram: [String(ana.id)] }, limits: { messagesPerMinute: 2 } },
    });
    await t.say(eve, "let me in");
    for (const text of ["one", "two", "three"]) await t.say(ana, text);
    expect(alice.requests).toHaveLength(2);
    const database = new DatabaseSync(t.world.databaseUrl.replace(/^file:/, ""), { readOnly: true });
    try {
      const rows = database
        .prepare(`SELECT "text", "raw" FROM "Message" WHERE "authorKind" = 'human' ORDER BY "seq"`)
        .all() as { text: string; raw: string | null }[];
      const raw = new Map(rows.map((row) => [row.text, row.raw === null ? null : (JSON.parse(row.raw) as unknown)]));
      expect(raw.get("let me in")).toEqual({ omitted: "non-member" });
      expect(raw.get("three")).toEqual({ omitted: "rate-limited" });
      expect(raw.get("one")).toMatchObject({ message: { text: "one" } });
      expect(raw.get("two")).toMatchObject({ message: { text: "two" } });
    } finally {
      database.close();
    }
  });

  it("a non-member's message starts no turn; they get one short reply an hour", async () => {
    const alice = echoer();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { members: { telegram: [String(ana.id)] } },
    });
    await t.say(eve, "@alice echo one");
    await t.say(eve, "@alice echo two");
    expect(alice.requests).toHaveLength(0);
    expect(t.botTexts()).toEqual([
      expect.stringContaining("You are not a member of this chat's world, so the agents do not answer your messages."),
    ]);
    await t.say(ana, "@alice echo three");
    expect(alice.requests).toHaveLength(1);
  });

  it("`admins` as members: the chat's administrators start turns (looked up with getChatMember), others do not", async () => {
    const alice = new ScriptedProvider(() => ({ text: "yes?" }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { members: { telegram: ["admins"] }, defaultAgent: "alice" },
      chats: { [String(groupId)]: "main" },
    });
    t.fake.setMemberStatus(-1001234, boss.id, "administrator");
    await t.say(eve, "hello");
    expect(alice.requests).toHaveLength(0);
    await t.say(boss, "hello");
    expect(alice.requests).toHaveLength(1);
  });

  it("/reset@bot ends session grants and closes pending cards as skipped, saying who reset", async () => {
    const alice = echoer();
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice echo same");
    const first = (await cards(t))[0];
    await t.press(ana, first?.message_id ?? 0, button(first, /For session/));
    await t.say(ana, "@alice echo same");
    expect(await cards(t)).toHaveLength(1); // the session grant ran it without a card

    await t.say(ana, "@alice echo other");
    const pending = (await cards(t))[1];
    expect(pending?.reply_markup).toBeDefined();
    await t.say(ana, "/reset@roundtable_bot");

    const closed = t.fake.messagesIn(-1001234).find((message) => message.message_id === pending?.message_id);
    expect(closed?.text).toContain("Skipped: chat reset by Ana");
    expect(closed?.reply_markup).toBeUndefined();
    const approvals = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approvals.map((approval) => approval.state).sort()).toEqual(["approved", "skipped"]);
    expect(t.botTexts().at(-1)).toContain("Chat reset by Ana");
    const requests = alice.requests.length;

    // The grant is gone: the same call needs a card again.
    await t.say(ana, "@alice echo same");
    expect(await cards(t)).toHaveLength(3);
    expect(alice.requests.length).toBe(requests + 1);
    // /reset@otherbot is someone else's.
    const before = t.botMessages().length;
    await t.say(ana, "/reset@other_bot");
    expect(t.botMessages()).toHaveLength(before);
  });

  it("a card for 5,000 characters of arguments carries all of them: it says so and attaches the whole JSON", async () => {
    const long = `${"0123456789".repeat(500)}`;
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [long, "the-end"] } }] },
    );
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice echo a lot");
    const card = (await cards(t))[0];
    const whole = JSON.stringify({ command: "echo", args: [long, "the-end"] }, null, 2);
    expect(card?.text).toContain(`The arguments are ${whole.length} characters long`);
    expect(card?.text).toContain(`arguments-`);
    const document = t.fake.messagesIn(-1001234).find((message) => message.document !== undefined);
    expect(document?.reply_to_message_id).toBe(card?.message_id);
    expect(document?.document?.content).toBe(whole);
    expect(JSON.parse(document?.document?.content ?? "{}")).toEqual({ command: "echo", args: [long, "the-end"] });
    // Short arguments stay on the card, with no file.
    expect(t.fake.callsTo("sendDocument")).toHaveLength(1);
  });
});
