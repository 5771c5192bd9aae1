import { Client, REST } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { DiscordApi } from "../../channels/discord/api.js";
import { ChatLocator } from "../../channels/discord/chat-locator.js";
import { type AdapterHarness, adapterHarness, mainToken, waitFor } from "./helpers.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const alice = { kind: "agent" as const, id: "alice", name: "alice" };

describe("the Discord adapter when things go wrong", () => {
  it("an invalidated session is identified anew and messages flow again", async () => {
    h = await adapterHarness();
    h.fake.gateway.invalidateSession();
    // discord.js waits out Discord's identify spacing (up to 5 s) before identifying again.
    await waitFor(() => h?.fake.gateway.identifies.length === 2 && h.adapter.isConnected(), 10_000);
    h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: "back again" });
    await waitFor(() => h?.sink.accepted.length === 1);
    expect(h.sink.accepted[0]?.text).toBe("back again");
  });

  it("a webhook someone deleted is made again and the post goes through", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    await writerFor(h.adapter).postMessage(chat, { author: alice, text: "first" });
    h.fake.state.webhooks.clear();
    const sent = await writerFor(h.adapter).postMessage(chat, { author: alice, text: "second" });
    expect(h.fake.message(sent.ids[0] ?? "")).toMatchObject({ content: "second", author: { username: "Alice" } });
    expect(h.fake.callsTo("POST", /\/channels\/\d+\/webhooks$/)).toHaveLength(2);
  });

  it("a message in a thread the bot never heard of is still the thread's chat, bound like its channel", async () => {
    h = await adapterHarness();
    const thread = h.fake.addThread(h.general.id, "quiet thread", undefined, { silent: true });
    h.fake.userMessage({ channelId: thread.id, author: h.ana, content: "anyone?" });
    await waitFor(() => h?.sink.accepted.length === 1);
    expect(h.sink.accepted[0]?.chat).toEqual({
      platform: "discord",
      workspace: h.guildId,
      channel: h.general.id,
      thread: thread.id,
    });
    expect(h.fake.callsTo("GET", new RegExp(`^/channels/${thread.id}$`))).toHaveLength(1);
  });

  it("a channel discord.js has not cached is read through the API, once", async () => {
    h = await adapterHarness();
    const thread = h.fake.addThread(h.general.id, "elsewhere", undefined, { silent: true });
    const api = new DiscordApi(new REST({ version: "10", api: h.fake.apiUrl }).setToken(mainToken));
    const locator = new ChatLocator(new Client({ intents: [] }), api);
    const expected = { platform: "discord", workspace: h.guildId, channel: h.general.id, thread: thread.id };
    expect(await locator.chatOf(thread.id, h.guildId)).toEqual(expected);
    expect(await locator.chatOf(thread.id, h.guildId)).toEqual(expected);
    expect(await locator.chatOf(h.general.id, h.guildId)).toEqual({
      platform: "discord",
      workspace: h.guildId,
      channel: h.general.id,
    });
    expect(h.fake.callsTo("GET", new RegExp(`^/channels/${thread.id}$`))).toHaveLength(1);
  });

  it("a malformed message is logged and skipped; the next one is handed in", async () => {
    h = await adapterHarness();
    h.fake.gateway.dispatch("MESSAGE_CREATE", { id: "1", channel_id: h.general.id, guild_id: h.guildId, content: 7 });
    h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: "fine" });
    await waitFor(() => h?.sink.accepted.length === 1);
    expect(h.lines.some((line) => line.msg === "malformed discord message skipped")).toBe(true);
  });
});
