import { afterEach, describe, expect, it } from "vitest";
import type { PartKey } from "../../src/world/delivery/post-key.js";
import { type AdapterHarness, adapterHarness, mainToken } from "./helpers.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const alice = { kind: "agent" as const, id: "alice", name: "alice" };
const system = { kind: "system" as const, id: "roundtable", name: "roundtable" };
const key = (name: string, mayExist: boolean, isStored?: (id: string) => Promise<boolean>): PartKey => ({
  key: `${name}:0`,
  mayExist,
  since: new Date(Date.now() - 60_000),
  ...(isStored ? { isStored } : {}),
});
const card = {
  approvalId: "approval-1",
  shortId: "a1",
  agent: "alice",
  tool: "shell_cmd",
  argumentsJson: '{"command":"ls"}',
  argumentsPreview: '{"command":"ls"}',
  reason: "",
  requestedFor: "Ana",
  choices: ["once", "session", "deny"] as const,
  expiresAt: new Date(Date.now() + 60_000),
};
const outcome = {
  approvalId: card.approvalId,
  shortId: card.shortId,
  agent: "alice",
  tool: "shell_cmd",
  argumentsPreview: "{}",
  state: "denied" as const,
  decidedBy: { id: "1", name: "Ana" },
  at: new Date(),
};

function chats(harness: AdapterHarness) {
  return {
    /** Agents post here through the channel webhook. */
    hooked: { platform: "discord" as const, workspace: harness.guildId, channel: harness.general.id },
    /** The bot may not manage webhooks here: agents post through the bot with their name in bold. */
    bot: { platform: "discord" as const, workspace: harness.guildId, channel: harness.locked.id },
  };
}

const stopButtons = (components: unknown[]) =>
  JSON.stringify(components).includes('"label":"Stop"') ? "Stop" : components.length === 0 ? "none" : "other";

describe("the Discord channel primitives on the fake Discord", () => {
  it("renders parts for the way the author posts: bare through the webhook, with the bold name through the bot, split at 2,000", async () => {
    h = await adapterHarness();
    const { hooked, bot } = chats(h);
    expect(await h.adapter.renderParts(hooked, { author: alice, text: "Hi" })).toEqual([
      { content: "Hi", userIds: [] },
    ]);
    expect(await h.adapter.renderParts(bot, { author: alice, text: "Hi" })).toEqual([
      { content: "**Alice:** Hi", userIds: [] },
    ]);
    const mention = { text: "@ana", target: { kind: "person" as const, id: h.ana.id, name: "ana" } };
    const [pinging] = await h.adapter.renderParts(hooked, { author: system, text: "ask @ana", mentions: [mention] });
    expect(pinging).toEqual({ content: `ask <@${h.ana.id}>`, userIds: [h.ana.id] });
    const long = await h.adapter.renderParts(bot, { author: alice, text: "word ".repeat(900) });
    expect(long.length).toBeGreaterThan(2);
    for (const part of long) {
      expect(part.content.startsWith("**Alice:** ")).toBe(true);
      expect(part.content.length).toBeLessThanOrEqual(2000);
    }
    expect(h.adapter.samePart({ content: "Hi ", userIds: [] }, { content: "Hi", userIds: ["1"] })).toBe(true);
    expect(h.adapter.samePart({ content: "Hi", userIds: [] }, { content: "Hi!", userIds: [] })).toBe(false);
    expect(h.adapter.streamMode(hooked, alice)).toMatchObject({ kind: "edit", intervalMs: 1000, liveControls: true });
    expect(h.adapter.streamMode(hooked, system)).toMatchObject({ kind: "edit", liveControls: false });
  });

  it("sends a live part under the agent's name with a Stop button, edits it settled (Stop gone), and deletes it", async () => {
    h = await adapterHarness();
    const { hooked } = chats(h);
    const reply = h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: "plan?" });
    const id = await h.adapter.sendPart(
      hooked,
      alice,
      { content: "Work", userIds: [] },
      { live: true, replyTo: reply.id },
    );
    const sent = h.fake.message(id);
    expect(sent).toMatchObject({ content: "Work", author: { username: "Alice" }, webhook_id: expect.any(String) });
    expect(sent?.message_reference?.message_id).toBe(reply.id);
    expect(stopButtons(sent?.components ?? [])).toBe("Stop");

    await h.adapter.editPart(hooked, alice, id, { content: "Work in progress", userIds: [] }, { live: true });
    expect(stopButtons(h.fake.message(id)?.components ?? [])).toBe("Stop");
    await h.adapter.editPart(hooked, alice, id, { content: "Work done.", userIds: [] });
    expect(h.fake.message(id)).toMatchObject({ content: "Work done.", components: [] });
    expect(h.fake.message(id)?.history).toEqual(["Work", "Work in progress", "Work done."]);

    await h.adapter.deletePart(hooked, alice, id);
    expect(h.fake.message(id)?.deleted).toBe(true);
    // A message already gone is no error.
    await h.adapter.deletePart(hooked, alice, id);
  });

  it("a system part carries no Stop button even when live; a webhook message is removed with the system author too", async () => {
    h = await adapterHarness();
    const { hooked } = chats(h);
    const notice = await h.adapter.sendPart(hooked, system, { content: "Notice", userIds: [] }, { live: true });
    expect(h.fake.message(notice)).toMatchObject({ sentByToken: mainToken, components: [] });
    const answer = await h.adapter.sendPart(hooked, alice, { content: "Answer", userIds: [] });
    await h.adapter.deletePart(hooked, system, answer);
    expect(h.fake.message(answer)?.deleted).toBe(true);
  });

  it("a bot part sent with its key carries the nonce: the same key again is Discord's first message, made to show the new text", async () => {
    h = await adapterHarness();
    const { bot } = chats(h);
    const first = await h.adapter.sendPart(
      bot,
      alice,
      { content: "**Alice:** Deploy", userIds: [] },
      { key: key("a", false) },
    );
    const again = await h.adapter.sendPart(
      bot,
      alice,
      { content: "**Alice:** Deploying now.", userIds: [] },
      { key: key("a", true) },
    );
    expect(again).toBe(first);
    expect(h.fake.messagesIn(h.locked.id).map((message) => message.content)).toEqual(["**Alice:** Deploying now."]);
    const bodies = h.fake.callsTo("POST", /^\/channels\/\d+\/messages$/).map((call) => call.body);
    expect(bodies).toEqual([
      expect.objectContaining({ nonce: expect.any(String), enforce_nonce: true }),
      expect.objectContaining({ nonce: (bodies[0] as { nonce: string }).nonce }),
    ]);
    // Sending makes no look-up: that is findPosted's, asked by the world.
    expect(h.fake.callsTo("GET", /^\/channels\/\d+\/messages$/)).toHaveLength(0);
  });

  it("findPosted: the webhook name's newest unstored message whatever it shows; the bot's only when alike; never a stored one", async () => {
    h = await adapterHarness();
    const { hooked, bot } = chats(h);
    const hookId = await h.adapter.sendPart(hooked, alice, { content: "An earlier run's text", userIds: [] });
    const part = { content: "What this run says", userIds: [] };
    expect(
      await h.adapter.findPosted(
        hooked,
        alice,
        key("b", true, async () => false),
        part,
      ),
    ).toEqual({
      id: hookId,
      shows: { content: "An earlier run's text", userIds: [] },
    });
    expect(
      await h.adapter.findPosted(
        hooked,
        alice,
        key("b", true, async (id) => id === hookId),
        part,
      ),
    ).toBeUndefined();

    const botId = await h.adapter.sendPart(bot, alice, { content: "**Alice:** I'll check", userIds: [] });
    const alike = { content: "**Alice:** I'll check the build.", userIds: [] };
    expect((await h.adapter.findPosted(bot, alice, key("c", true), alike))?.id).toBe(botId);
    expect(
      await h.adapter.findPosted(bot, alice, key("c", true), { content: "**Alice:** No", userIds: [] }),
    ).toBeUndefined();
  });

  it("findPosted that Discord refuses (no Read Message History) answers none with a warn log line", async () => {
    h = await adapterHarness();
    const { hooked } = chats(h);
    h.fake.failNext("GET", /^\/channels\/\d+\/messages$/, 403, 50001, "Missing Access");
    expect(await h.adapter.findPosted(hooked, alice, key("d", true), { content: "x", userIds: [] })).toBeUndefined();
    expect(h.lines.some((line) => line.level === 40 && String(line.msg).includes("could not look for"))).toBe(true);
  });

  it("a webhook someone deleted is made again once and the part goes through", async () => {
    h = await adapterHarness();
    const { hooked } = chats(h);
    await h.adapter.sendPart(hooked, alice, { content: "first", userIds: [] });
    h.fake.state.webhooks.clear();
    const id = await h.adapter.sendPart(hooked, alice, { content: "second", userIds: [] });
    expect(h.fake.message(id)).toMatchObject({ content: "second", author: { username: "Alice" } });
    expect(h.fake.callsTo("POST", /\/channels\/\d+\/webhooks$/)).toHaveLength(2);
  });

  it("a card comes from the bot with its buttons, once under its key; its outcome is edited onto it, or 'gone' when it was deleted", async () => {
    h = await adapterHarness();
    const { hooked } = chats(h);
    const cardKey = { ...key("card:approval-1", false), key: "card:approval-1:0" };
    const { id } = await h.adapter.sendCard(hooked, card, cardKey);
    const again = await h.adapter.sendCard(hooked, card, { ...cardKey, mayExist: true });
    expect(again.id).toBe(id);
    expect(h.fake.messagesIn(h.general.id)).toHaveLength(1);
    expect(h.fake.message(id)).toMatchObject({ sentByToken: mainToken });
    expect(JSON.stringify(h.fake.message(id)?.components)).toContain("Approve once");

    expect(await h.adapter.editCard(hooked, id, outcome)).toBe("edited");
    expect(h.fake.message(id)).toMatchObject({ components: [] });
    expect(h.fake.message(id)?.content).toContain("❌ Denied by Ana");

    const shown = h.fake.message(id);
    if (shown) shown.deleted = true;
    expect(await h.adapter.editCard(hooked, id, outcome)).toBe("gone");
    const rendered = await h.adapter.renderOutcome(hooked, outcome);
    expect(rendered.content).toContain("❌ Denied by Ana");
    expect(rendered.userIds).toEqual([]);
  });
});
