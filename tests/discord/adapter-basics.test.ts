import { afterEach, describe, expect, it } from "vitest";
import { type AdapterHarness, adapterHarness, logsMatching, mainToken, waitFor } from "./helpers.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the Discord adapter on the fake gateway", () => {
  it("identifies with guilds, guild messages, message content and direct messages", async () => {
    h = await adapterHarness();
    expect(h.adapter.isConnected()).toBe(true);
    const [identify] = h.fake.gateway.identifies;
    // Guilds 1<<0, GuildMessages 1<<9, DirectMessages 1<<12, MessageContent 1<<15.
    expect(identify).toEqual({ token: mainToken, intents: (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15) });
  });

  it("hands a person's message in a channel to the world with mentions as names", async () => {
    h = await adapterHarness();
    const { fake, general, ana, olga } = h;
    fake.userMessage({
      channelId: general.id,
      author: ana,
      content: `<@${h.bot.id}> ask <@${olga.id}> and <@&${roleId(h, "Ops")}>`,
    });
    await waitFor(() => h?.sink.accepted.length === 1);
    const [message] = h.sink.accepted;
    expect(message?.chat).toEqual({ platform: "discord", workspace: h.guildId, channel: general.id });
    expect(message?.text).toBe("ask @olga and @Ops");
    expect(message?.mentions).toEqual(["olga", "Ops"]);
    expect(message?.sender).toMatchObject({ id: ana.id, displayName: "Ana", handle: "ana", isBot: false });
    expect(message?.sender.roles).toContain("Dev");
  });

  it("posts an agent's answer through the channel webhook under its name and avatar; the echo starts nothing", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const sent = await writerFor(h.adapter).postMessage(chat, {
      author: { kind: "agent", id: "alice", name: "alice" },
      text: "Hello **team**",
    });
    expect(sent.ids).toHaveLength(1);
    const posted = h.fake.message(sent.ids[0] ?? "");
    expect(posted?.author).toMatchObject({ username: "Alice", avatar: "https://example.test/alice.png" });
    expect(posted?.webhook_id).toBeDefined();
    expect(posted?.content).toBe("Hello **team**");
    // A second post reuses the webhook.
    await writerFor(h.adapter).postMessage(chat, { author: { kind: "agent", id: "bob", name: "bob" }, text: "Hi" });
    expect(h.fake.callsTo("POST", /\/channels\/\d+\/webhooks$/)).toHaveLength(1);
    // Both echoes come back marked as our own (the world stores nothing for them, starts nothing).
    await waitFor(() => h?.sink.messages.length === 2);
    expect(h.sink.messages.map((message) => [message.ownEcho, message.sender.displayName])).toEqual([
      [true, "Alice"],
      [true, "bob"],
    ]);
  });

  it("falls back to the bot with the agent's name in bold where webhooks are not allowed", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.locked.id };
    const sent = await writerFor(h.adapter).postMessage(chat, {
      author: { kind: "agent", id: "alice", name: "alice" },
      text: "Hello",
    });
    const posted = h.fake.message(sent.ids[0] ?? "");
    expect(posted?.content).toBe("**Alice:** Hello");
    expect(posted?.sentByToken).toBe(mainToken);
    expect(logsMatching(h.lines, /may not manage webhooks/)).toHaveLength(1);
  });
});

function roleId(h: AdapterHarness, name: string): string {
  const role = h.fake.state.guilds.get(h.guildId)?.roles.find((each) => each.name === name);
  if (!role) throw new Error(`no role ${name}`);
  return role.id;
}
