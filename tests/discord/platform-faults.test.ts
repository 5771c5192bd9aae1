/**
 * Discord refusing under load (docs/reliability.md, "A platform refuses"): a 429 on one
 * channel's bucket waited out for that chat only; a 502 or a cut connection after Discord took
 * a post never shows it twice (a bot post carries its nonce, a webhook post is read back before
 * it is sent again); an edit refused with a 5xx is sent again. Several chats at once, every
 * answer judged: none lost, none doubled, each chat's text exact.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FakeChannel, StoredDiscordMessage } from "../fakes/discord-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { waitFor } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const alice = { name: "alice", displayName: "Alice" };

function answering(): ScriptedProvider {
  return new ScriptedProvider((request) => ({
    text: `Answer to ${ScriptedProvider.lastText(request).replace(/^.*?: /, "")}`,
  }));
}

/** Three channels of the guild; `webhooks: false` makes the bot post (with nonces) instead of a webhook. */
function addChannels(world: WorldDiscord, webhooks: boolean): FakeChannel[] {
  return ["one", "two", "three"].map((name) =>
    world.fake.addTextChannel(world.guildId, name, { manageWebhooks: webhooks }),
  );
}

/** One question in each channel at once; resolves when the world has taken all and is idle. */
async function askEach(world: WorldDiscord, channels: FakeChannel[]): Promise<void> {
  const messages: StoredDiscordMessage[] = channels.map((channel) =>
    world.fake.userMessage({ channelId: channel.id, author: world.ana, content: `${channel.name} question` }),
  );
  for (const message of messages) await world.settle(message);
  await world.world.idle();
}

/** Each channel shows its answer once; the bot's posts begin with the agent's name in bold. */
function expectEachAnsweredOnce(world: WorldDiscord, channels: FakeChannel[], by: "webhook" | "bot"): void {
  const prefix = by === "bot" ? "**Alice:** " : "";
  for (const channel of channels) {
    expect(world.posts(channel.id).map((post) => post.content)).toEqual([
      `${prefix}Answer to ${channel.name} question`,
    ]);
  }
}

const messagesOf = (channel: FakeChannel) => new RegExp(`^/channels/${channel.id}/messages$`);
const webhookExecute = /^\/webhooks\/\d+\/[^/]+$/;

describe("Discord refusing, several chats at once", () => {
  it("a 429 on one channel's bucket is waited out for that chat only: the other chats' posts go first", async () => {
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: answering() }],
      identities: [alice],
      world: { defaultAgent: "alice" },
    });
    const channels = addChannels(t, false);
    const [one] = channels;
    if (!one) throw new Error("no channel");
    t.fake.rateLimitNext("POST", messagesOf(one), 2);
    const world = t;
    world.fake.userMessage({ channelId: one.id, author: world.ana, content: "one question" });
    await waitFor(() => world.fake.callsTo("POST", messagesOf(one)).some((call) => call.status === 429), 5_000);
    await askEach(t, channels.slice(1));
    await waitFor(() => world.posts(one.id).length === 1, 10_000);
    await t.world.idle();
    expectEachAnsweredOnce(t, channels, "bot");
    const posts = t.fake.calls.filter(
      (call) => call.method === "POST" && /^\/channels\/\d+\/messages$/.test(call.path),
    );
    const oneDone = posts.findIndex((call) => call.path.includes(one.id) && call.status === 200);
    const othersDone = posts.filter((call) => !call.path.includes(one.id) && call.status === 200);
    expect(othersDone).toHaveLength(2);
    for (const call of othersDone) expect(posts.indexOf(call)).toBeLessThan(oneDone);
  });

  it.each([
    ["answered 502", { status: 502 }],
    ["answered 500", { status: 500 }],
    ["cut (connection reset)", { reset: true }],
  ])(
    "a webhook post Discord took but whose answer was lost (%s) is read back, never posted twice",
    async (_name, fault) => {
      t = await worldOnDiscord({
        agents: [{ name: "alice", provider: answering() }],
        identities: [alice],
        world: { defaultAgent: "alice" },
      });
      const channels = addChannels(t, true);
      t.fake.faultNext("POST", webhookExecute, { ...fault, afterDoing: true });
      await askEach(t, channels);
      expectEachAnsweredOnce(t, channels, "webhook");
      expect(t.fake.callsTo("POST", webhookExecute).filter((call) => call.status === 200)).toHaveLength(2);
    },
  );

  it.each([
    ["answered 502", { status: 502 }],
    ["cut (connection reset)", { reset: true }],
  ])(
    "a bot post Discord took but whose answer was lost (%s) is sent again under its nonce: shown once",
    async (_name, fault) => {
      t = await worldOnDiscord({
        agents: [{ name: "alice", provider: answering() }],
        identities: [alice],
        world: { defaultAgent: "alice" },
      });
      const channels = addChannels(t, false);
      const [one] = channels;
      if (!one) throw new Error("no channel");
      t.fake.faultNext("POST", messagesOf(one), { ...fault, afterDoing: true });
      await askEach(t, channels);
      expectEachAnsweredOnce(t, channels, "bot");
    },
  );

  it("a post refused with a 502 before Discord took it is sent again; an edit refused with a 502 too", async () => {
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: answering() }],
      identities: [alice],
      world: { defaultAgent: "alice" },
    });
    const channels = addChannels(t, true);
    t.fake.faultNext("POST", webhookExecute, { status: 502 }, 2);
    t.fake.faultNext("PATCH", /^\/webhooks\/\d+\/[^/]+\/messages\/\d+$/, { status: 503 }, 2);
    await askEach(t, channels);
    expectEachAnsweredOnce(t, channels, "webhook");
  });
});
