import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, ManualClock, mainToken } from "./helpers.js";
import { bobToken, group, groupKey, nastyAnswer, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("agents' answers on Telegram through the world engine", () => {
  it("an agent with its own bot posts as that bot, is addressed by its real @username, and each group message is handled once", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Confirmed from my side." }));
    const bob = new ScriptedProvider((request) => {
      const last = ScriptedProvider.lastText(request);
      if (last.endsWith("thanks")) return { text: "You're welcome." };
      return last.startsWith("Ana:") ? { text: "@alice can you confirm?" } : { text: "Great." };
    });
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 3 },
      agentConfig: { bob: { telegram: { token: bobToken } } },
      extraBots: [{ token: bobToken, username: "bob_rt_bot", firstName: "Bob", canReadAllGroupMessages: true }],
      adapter: { agentBots: [{ agent: "bob", token: bobToken }] },
    });
    const text = "@bob_rt_bot is the release ready?";
    const entities = [{ type: "mention", offset: 0, length: "@bob_rt_bot".length }];
    const { message, update } = t.fake.userMessage(mainToken, {
      chatId: Number(group.channel),
      from: ana,
      text,
      entities,
    });
    // Telegram hands a group message to every bot in the group that may read it: bob's bot too.
    t.fake.pushUpdate(bobToken, { message });
    await t.settle(update);

    // The mention of bob's bot reached the world as an address to bob.
    expect(bob.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: @bob is the release ready?" });
    const posted = t.botMessages();
    expect(posted.map((each) => [each.from.username, each.text])).toEqual([
      ["bob_rt_bot", "@alice can you confirm?"],
      // alice has no bot of her own: the main bot with her name in bold, addressed back to bob,
      // whose mention is his own bot's (a real Telegram mention).
      ["roundtable_bot", "alice: @bob_rt_bot Confirmed from my side."],
      ["bob_rt_bot", "@alice Great."],
      ["roundtable_bot", expect.stringMatching(/^@ana_r the agents have taken 3 turns/)],
    ]);
    expect(posted[0]?.sentByToken).toBe(bobToken);
    expect(posted[0]?.source).toBe("@alice can you confirm?");

    // Only the main bot's updates are read: one turn per message, bob's copy never fetched.
    expect(t.fake.callsTo("getUpdates", bobToken)).toHaveLength(0);
    expect(bob.requests).toHaveLength(2);
    expect(alice.requests).toHaveLength(1);
    const humans = (await t.world.store.listMessages(groupKey)).filter((each) => each.author.kind === "human");
    expect(humans).toHaveLength(1);

    // A later message to bob's bot, again seen by both bots, is again answered once.
    const next = t.fake.userMessage(mainToken, {
      chatId: Number(group.channel),
      from: ana,
      text: "@bob_rt_bot thanks",
      entities: [{ type: "mention", offset: 0, length: "@bob_rt_bot".length }],
    });
    t.fake.pushUpdate(bobToken, { message: next.message });
    await t.settle(next.update);
    expect(bob.requests).toHaveLength(3);
    expect(alice.requests).toHaveLength(1);
    expect(
      t
        .botMessages()
        .slice(4)
        .map((each) => [each.from.username, each.text]),
    ).toEqual([["bob_rt_bot", "You're welcome."]]);

    // A reply to a message of bob's own bot addresses bob, with no mention at all.
    const bobsMessage = t.botMessages()[4];
    await t.say(ana, "many thanks", { replyTo: bobsMessage?.message_id ?? 0 });
    expect(bob.requests).toHaveLength(4);
    expect(bob.requests[3]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: many thanks" });
    expect(
      t
        .botMessages()
        .slice(5)
        .map((each) => [each.from.username, each.text]),
    ).toEqual([["bob_rt_bot", "You're welcome."]]);
  });

  it("model output with <, &, unbalanced * and 10,000 characters arrives intact in several messages", async () => {
    const text = nastyAnswer();
    expect(text.length).toBeGreaterThanOrEqual(10_000);
    const alice = new ScriptedProvider(() => ({ text }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }] });
    await t.say(ana, "@alice write the long report");

    const messages = t.botMessages();
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4096);
      expect(message.text.startsWith("alice: ")).toBe(true);
      expect(message.source?.startsWith("<b>alice:</b> ")).toBe(true);
    }
    const received = messages.map((message) => message.text.slice("alice: ".length)).join("\n\n");
    expect(received).toBe(text);
    expect(messages[0]?.source).toContain("a &lt; b &amp;&amp; b &gt; c");
    // Telegram refused nothing on the way (no plain-text fallback, no failed edit).
    const sent = [...t.fake.callsTo("sendMessage"), ...t.fake.callsTo("editMessageText")];
    expect(sent.every((call) => call.ok)).toBe(true);
    expect(sent.every((call) => call.params.parse_mode === "HTML")).toBe(true);
    // The world recorded every part, so a reply to any of them finds the answer.
    const outbound = await t.world.store.getOutbound(
      "message",
      `${(await t.world.store.listTurns({ chatKey: groupKey }))[0]?.id}#1`,
    );
    expect(outbound?.platformMessageIds).toEqual(messages.map((message) => String(message.message_id)));
  });

  it("a 429 with retry_after on an agent's sendMessage: the answer arrives after the wait, posted once", async () => {
    const clock = new ManualClock();
    const alice = new ScriptedProvider(() => ({ text: "The build is green." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      clock,
      // No throttle waits: the only sleep on this clock is the flood-control wait.
      adapter: { throttle: { groupIntervalMs: 0, privateIntervalMs: 0 } },
    });
    t.fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 5",
      retry_after: 5,
    });
    const { update } = t.fake.userMessage(mainToken, {
      chatId: Number(group.channel),
      from: ana,
      text: "@alice status?",
      entities: [{ type: "mention", offset: 0, length: 6 }],
    });
    const fake = t.fake;
    await t.world.waitFor(() => fake.confirmedOffset(mainToken) > (update.update_id as number));

    // The adapter was refused and now waits the 5 s Telegram asked for; nothing is posted yet.
    await t.world.waitFor(() => clock.sleeping() === 1);
    expect(clock.sleeps).toEqual([5000]);
    expect(t.fake.callsTo("sendMessage").map((call) => call.errorCode ?? 200)).toEqual([429]);
    expect(t.botMessages()).toHaveLength(0);

    clock.advance(5000);
    await t.world.idle();
    expect(t.fake.callsTo("sendMessage").map((call) => call.errorCode ?? 200)).toEqual([429, 200]);
    expect(t.botTexts()).toEqual(["alice: The build is green."]);
    expect(alice.requests).toHaveLength(1);
    const [turn] = await t.world.store.listTurns({ chatKey: groupKey });
    expect(turn).toMatchObject({ state: "ended", endReason: "answered" });
    const outbound = await t.world.store.getOutbound("message", `${turn?.id}#1`);
    expect(outbound?.platformMessageIds).toEqual([String(t.botMessages()[0]?.message_id)]);
  });
});
