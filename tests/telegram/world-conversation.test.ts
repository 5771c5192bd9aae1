import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, logsMatching, mainToken } from "./helpers.js";
import { groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** alice passes a person's request to bob and thanks bob for anything else; bob always agrees. */
function aliceAndBob() {
  const alice = new ScriptedProvider((request) => {
    const last = ScriptedProvider.lastText(request);
    if (last.startsWith("Ana:")) return { text: "@bob what do you think?" };
    return { text: "Thanks, noted." };
  });
  const bob = new ScriptedProvider(() => ({ text: "I agree." }));
  return { alice, bob };
}

describe("a Telegram group through the world engine", () => {
  it("two agents talk under their names, bob is addressed back to alice, the turn limit hands back to the person, who resets it", async () => {
    const { alice, bob } = aliceAndBob();
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 4 },
    });
    await t.say(ana, "@alice plan the release");

    const round = [
      "alice: @bob what do you think?",
      // bob answers alice without an address of its own: the world addresses it back to her.
      "bob: @alice I agree.",
      "alice: @bob Thanks, noted.",
      "bob: @alice I agree.",
    ];
    const noticePattern = /^@ana_r the agents have taken 4 turns without a human message/;
    const first = t.botTexts();
    expect(first.slice(0, 4)).toEqual(round);
    expect(first[4]).toMatch(noticePattern);
    expect(first).toHaveLength(5);

    // One bot token: every agent message is the main bot's, with the agent's name in bold.
    const messages = t.botMessages();
    expect(messages.every((message) => message.sentByToken === mainToken)).toBe(true);
    expect(messages[0]?.source).toBe("<b>alice:</b> @bob what do you think?");
    expect(messages[1]?.source).toBe("<b>bob:</b> @alice I agree.");
    expect(messages[0]?.entities).toContainEqual({ type: "bold", offset: 0, length: "alice:".length });
    // The world's notice speaks for itself: no name, no bold prefix.
    expect(messages[4]?.source?.startsWith("<b>")).toBe(false);
    // The person's text reached the model as hers; bob saw alice's message led by her name.
    expect(alice.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: @alice plan the release" });
    expect(bob.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "alice: @bob what do you think?" });
    expect(alice.requests).toHaveLength(2);
    expect(bob.requests).toHaveLength(2);

    // The person writes again: the count starts over, so bob may answer alice again.
    await t.say(ana, "@alice one more thing");
    const second = t.botTexts().slice(5);
    expect(second.slice(0, 4)).toEqual(round);
    expect(second[4]).toMatch(noticePattern);
    expect(second).toHaveLength(5);
    expect(bob.requests).toHaveLength(4);
  });

  it("the same update delivered twice, and the same message in a later update, make one turn", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Once." }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }] });
    const fake = t.fake;
    const { message, update } = fake.userMessage(mainToken, {
      chatId: -1001234,
      from: ana,
      text: "@alice hi",
      entities: [{ type: "mention", offset: 0, length: 6 }],
    });
    // Telegram sends the very same update again (same update_id) in the same batch.
    const again = fake.pushUpdate(mainToken, update);
    expect(again.update_id).toBe(update.update_id);
    await t.settle(update);
    // And later once more under a new update id (a redelivery after a lost confirmation).
    const later = fake.pushUpdate(mainToken, { message });
    expect(later.update_id).not.toBe(update.update_id);
    await t.settle(later);

    // The adapter handed all three deliveries to the world; the world took one.
    expect(fake.confirmedOffset(mainToken)).toBe((later.update_id as number) + 1);
    const handedIn = logsMatching(t.lines, /telegram message handed in/).map((line) => line.status);
    expect(handedIn).toEqual(["accepted", "duplicate", "duplicate"]);
    expect(alice.requests).toHaveLength(1);
    expect(t.botTexts()).toEqual(["alice: Once."]);
    const stored = await t.world.store.listMessages(groupKey);
    expect(stored.filter((each) => each.author.kind === "human")).toHaveLength(1);
    expect(await t.world.store.listTurns({ chatKey: groupKey })).toHaveLength(1);
  });

  it("a reply to an agent's message addresses that agent without an @mention", async () => {
    const alice = new ScriptedProvider((request) => ({ text: `alice answers #${request.messages.length}` }));
    const bob = new ScriptedProvider(() => ({ text: "bob, the default, here." }));
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      // Without the reply, a message with no address would go to bob.
      world: { defaultAgent: "bob" },
    });
    await t.say(ana, "@alice status?");
    const [aliceMessage] = t.botMessages();
    expect(aliceMessage?.text).toMatch(/^alice: alice answers/);

    await t.say(ana, "and the date?", { replyTo: aliceMessage?.message_id ?? 0 });
    expect(alice.requests).toHaveLength(2);
    expect(alice.requests[1]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: and the date?" });
    expect(bob.requests).toHaveLength(0);
    expect(t.botMessages()).toHaveLength(2);

    // The control: the same words not as a reply go to the default agent.
    await t.say(ana, "and the date?");
    expect(bob.requests).toHaveLength(1);
    expect(alice.requests).toHaveLength(2);
    expect(t.botTexts().at(-1)).toBe("bob: bob, the default, here.");
  });
});
