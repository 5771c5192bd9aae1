import { afterEach, describe, expect, it } from "vitest";
import type { HeldResponse } from "../fakes/held-responses.js";
import type { ModelProvider } from "../../src/providers/model-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { type AdapterHarness, adapterHarness, type DiscordWorld, discordWorld, mainToken } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let open: WorldDiscord[] = [];
let fake: DiscordWorld | undefined;
let holds: HeldResponse[] = [];
afterEach(async () => {
  // The first service is closed last: its held call is answered only once the second one is gone.
  for (const world of open.reverse()) {
    for (const held of holds) held.release();
    await world.close();
  }
  await fake?.fake.close();
  open = [];
  holds = [];
  fake = undefined;
});

const alice = { name: "alice", displayName: "Alice Liddell" };
const answer = "Here is the plan: first we build, then we ship, and then we celebrate with cake.";
const shell = { name: "shell_cmd", args: { command: "echo", args: ["hi"] } };

/**
 * A service whose post the fake Discord takes but does not answer (as if the service died right
 * then), and a second service on the same database that takes the step back and finishes it.
 */
async function crashWhilePosting(
  discord: DiscordWorld,
  call: { method: string; path: RegExp },
  options: { channelId: string; model: (service: 1 | 2) => ModelProvider; tools?: boolean },
): Promise<{ first: WorldDiscord; second: WorldDiscord }> {
  const databaseUrl = temporaryDatabaseUrl();
  const service = (provider: ModelProvider) =>
    worldOnDiscord({
      discord,
      databaseUrl,
      keepDatabase: true,
      agents: [{ name: "alice", provider, ...(options.tools ? { tools: ["shell_cmd"] } : {}) }],
      identities: [alice],
      world: { defaultAgent: "alice" },
    });
  const held = discord.fake.holdNext(call.method, call.path);
  holds.push(held);
  const first = await service(options.model(1));
  open.push(first);
  discord.fake.userMessage({ channelId: options.channelId, author: discord.ana, content: "what is the plan?" });
  await held.reached;
  // The platform has the post; the first service never learns its id. A second one starts on
  // the same database, takes the step back (the embedded queue takes back every running job
  // at start) and finishes it.
  const second = await service(options.model(2));
  open.push(second);
  await second.world.waitFor(
    async () => (await second.world.store.listTurns({ states: ["ended", "parked"] })).length > 0,
  );
  await second.world.idle();
  return { first, second };
}

describe("Discord: a post the platform took before the service died is not posted again", () => {
  it("an agent's streamed answer through the channel webhook: the next service finds it and finishes it in place", async () => {
    fake = await discordWorld();
    const discord = fake;
    const { second } = await crashWhilePosting(
      discord,
      { method: "POST", path: /^\/webhooks\/\d+\/[^/]+$/ },
      { channelId: discord.general.id, model: () => new ScriptedProvider([{ text: answer }]) },
    );
    const posts = second.posts();
    expect(posts.map((post) => post.content)).toEqual([answer]);
    expect(posts[0]?.webhook_id).toBeDefined();
    // It was looked up (GET …/messages) rather than posted again.
    expect(discord.fake.callsTo("GET", /^\/channels\/\d+\/messages$/).length).toBeGreaterThan(0);
  }, 30_000);

  it("an agent's streamed answer through the bot (no webhook): the next service finds the first message", async () => {
    fake = await discordWorld();
    const discord = fake;
    const { second } = await crashWhilePosting(
      discord,
      { method: "POST", path: /^\/channels\/\d+\/messages$/ },
      { channelId: discord.locked.id, model: () => new ScriptedProvider([{ text: answer }]) },
    );
    const posts = second.posts(discord.locked.id);
    expect(posts.map((post) => post.content)).toEqual([`**Alice Liddell:** ${answer}`]);
    const created = discord.fake.callsTo("POST", /^\/channels\/\d+\/messages$/);
    for (const call of created) {
      expect(call.body).toMatchObject({ nonce: expect.any(String), enforce_nonce: true });
      expect(String((call.body as { nonce: string }).nonce).length).toBeLessThanOrEqual(25);
    }
  }, 30_000);

  it("a stream's first message, the service dying while the model still writes: the turn step run again finds it", async () => {
    fake = await discordWorld();
    const discord = fake;
    const whole = "Here is the first part of a long answer and the rest.";
    const { second } = await crashWhilePosting(
      discord,
      { method: "POST", path: /^\/webhooks\/\d+\/[^/]+$/ },
      {
        channelId: discord.general.id,
        model: (service) => (service === 1 ? new SlowProvider() : new ScriptedProvider([{ text: whole }])),
      },
    );
    expect(second.posts().map((post) => post.content)).toEqual([whole]);
  }, 30_000);

  it("a stream's first message, the model answering otherwise when asked again: the turn step run again finishes it in place", async () => {
    fake = await discordWorld();
    const discord = fake;
    const again = "A different answer, the second time it is asked.";
    const { second } = await crashWhilePosting(
      discord,
      { method: "POST", path: /^\/webhooks\/\d+\/[^/]+$/ },
      {
        channelId: discord.general.id,
        model: (service) => (service === 1 ? new SlowProvider() : new ScriptedProvider([{ text: again }])),
      },
    );
    expect(second.posts().map((post) => post.content)).toEqual([again]);
  }, 30_000);

  it("an approval card (posted by the deliver step): the step taken back gets the card already there", async () => {
    fake = await discordWorld();
    const discord = fake;
    const { second } = await crashWhilePosting(
      discord,
      { method: "POST", path: /^\/channels\/\d+\/messages$/ },
      { channelId: discord.general.id, model: () => new ScriptedProvider([{ toolCalls: [shell] }]), tools: true },
    );
    const cards = second.posts().filter((post) => post.components.length > 0);
    expect(cards).toHaveLength(1);
    const [pending] = await second.world.store.listApprovals({ states: ["pending"] });
    const recorded = await second.world.store.getOutbound("approval", pending?.id ?? "");
    expect(recorded?.platformMessageIds).toEqual([cards[0]?.id]);
  }, 30_000);
});

describe("Discord: looking for an earlier run's post", () => {
  let h: AdapterHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const bob = { kind: "agent" as const, id: "bob", name: "bob" };
  const observer = (mayExist: boolean) => ({
    posted: async () => {},
    postKey: { id: "turn-1#1", mayExist, since: new Date() },
  });

  it("a webhook post made again with the same key after a lost answer is found, not posted twice", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const first = await writerFor(h.adapter).postMessage(
      chat,
      { author: bob, text: "The build is green." },
      observer(false),
    );
    const again = await writerFor(h.adapter).postMessage(
      chat,
      { author: bob, text: "The build is green." },
      observer(true),
    );
    expect(again.ids).toEqual(first.ids);
    expect(h.fake.messagesIn(h.general.id)).toHaveLength(1);
  });

  it("a bot post sent again with the same key is answered by Discord with the first message (nonce)", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.locked.id };
    const first = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Shipped." }, observer(false));
    const again = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Shipped." }, observer(false));
    expect(again.ids).toEqual(first.ids);
    expect(h.fake.messagesIn(h.locked.id)).toHaveLength(1);
    const bodies = h.fake.callsTo("POST", /^\/channels\/\d+\/messages$/).map((call) => call.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({ nonce: (bodies[1] as { nonce: string }).nonce, enforce_nonce: true });
  });

  it("the fake dedupes a nonce only with enforce_nonce, as Discord does", async () => {
    h = await adapterHarness();
    const post = (body: Record<string, unknown>) =>
      fetch(`${h?.fake.apiUrl}/v10/channels/${h?.locked.id}/messages`, {
        method: "POST",
        headers: { authorization: `Bot ${mainToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<{ id: string; nonce?: string }>);
    const loose = [await post({ content: "a", nonce: "n1" }), await post({ content: "a", nonce: "n1" })];
    expect(new Set(loose.map((message) => message.id)).size).toBe(2);
    expect(loose[0]?.nonce).toBe("n1");
    const enforced = [
      await post({ content: "b", nonce: "n2", enforce_nonce: true }),
      await post({ content: "b", nonce: "n2", enforce_nonce: true }),
    ];
    expect(enforced[1]?.id).toBe(enforced[0]?.id);
    expect(h.fake.messagesIn(h.locked.id)).toHaveLength(3);
  });

  it("a bot post taken back after Discord forgot its nonce (minutes later) is found by reading the channel", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.locked.id };
    const first = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Deployed." }, observer(false));
    // Discord remembers a nonce for a few minutes: this post is older than that now.
    const posted = h.fake.message(first.ids[0] ?? "");
    if (posted) posted.timestamp = new Date(Date.now() - 10 * 60_000).toISOString();
    const again = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Deployed." }, observer(true));
    expect(again.ids).toEqual(first.ids);
    expect(h.fake.messagesIn(h.locked.id)).toHaveLength(1);
  });

  it.each([
    ["webhook", "general"],
    ["bot", "locked"],
  ] as const)(
    "the agent's previous %s post, alike, is not taken for this one: it is stored as another post's",
    async (_, where) => {
      h = await adapterHarness();
      const channel = h[where].id;
      const chat = { platform: "discord" as const, workspace: h.guildId, channel };
      const previous = "I'll check the build and tell you.";
      const first = await writerFor(h.adapter).postMessage(chat, { author: bob, text: previous }, observer(false));
      const stored = new Set(first.ids);
      // The next answer's stream posts its first word on a later attempt: that word begins the
      // previous answer, which is the author's newest message.
      const again = await writerFor(h.adapter).postMessage(
        chat,
        { author: bob, text: "I" },
        {
          posted: async () => {},
          postKey: { id: "turn-1#2", mayExist: true, since: new Date(), isStored: async (id) => stored.has(id) },
        },
      );
      expect(again.ids).not.toEqual(first.ids);
      const shown = h.fake.messagesIn(channel).map((message) => message.content);
      expect(shown).toHaveLength(2);
      expect(shown[0]).toContain(previous);
    },
  );

  it("a post after a busy quarter of an hour is found: the look-up reads the channel's newest messages", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const since = new Date(Date.now() - 60_000);
    const carol = { kind: "agent" as const, id: "carol", name: "carol" };
    // More messages than one read returns came after the post's bound, before the post.
    for (let index = 0; index < 110; index++) {
      await writerFor(h.adapter).postMessage(chat, { author: carol, text: `Noise ${index}.` });
    }
    const key = (mayExist: boolean) => ({ posted: async () => {}, postKey: { id: "turn-9#1", mayExist, since } });
    const first = await writerFor(h.adapter).postMessage(
      chat,
      { author: bob, text: "The build is green." },
      key(false),
    );
    const again = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "The build is green." }, key(true));
    expect(again.ids).toEqual(first.ids);
    expect(h.fake.messagesIn(h.general.id)).toHaveLength(111);
  });

  it("the fake answers `after` with the messages right after it, as Discord does, and no `after` with the newest", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    for (let index = 0; index < 5; index++) {
      await writerFor(h.adapter).postMessage(chat, { author: bob, text: `Message ${index}.` });
    }
    const list = (query: string) =>
      fetch(`${h?.fake.apiUrl}/v10/channels/${h?.general.id}/messages?${query}`, {
        headers: { authorization: `Bot ${mainToken}` },
      }).then((response) => response.json() as Promise<{ content: string }[]>);
    expect((await list("after=0&limit=2")).map((message) => message.content)).toEqual(["Message 1.", "Message 0."]);
    expect((await list("limit=2")).map((message) => message.content)).toEqual(["Message 4.", "Message 3."]);
  });

  it("a bot post removed and made again under the same key (a failed stream's retry) is posted anew, not lost", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.locked.id };
    const first = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Deploying" }, observer(false));
    await writerFor(h.adapter).deleteMessages(chat, first);
    // Discord keeps the nonce and answers it with Unknown Message: the adapter uses the part's second nonce.
    const again = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Deploying now." }, observer(true));
    expect(again.ids).not.toEqual(first.ids);
    const live = h.fake.messagesIn(h.locked.id).filter((message) => !message.deleted);
    expect(live.map((message) => message.content)).toEqual(["**bob:** Deploying now."]);
    // Removed again, and made again: no nonce is left, so it is posted without one.
    await writerFor(h.adapter).deleteMessages(chat, again);
    const third = await writerFor(h.adapter).postMessage(chat, { author: bob, text: "Deploying now." }, observer(true));
    expect(
      h.fake
        .messagesIn(h.locked.id)
        .filter((message) => !message.deleted)
        .map((message) => message.id),
    ).toEqual(third.ids);
  });

  it("a first attempt makes no look-up (no extra platform call)", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    await writerFor(h.adapter).postMessage(chat, { author: bob, text: "One call." }, observer(false));
    expect(h.fake.callsTo("GET", /^\/channels\/\d+\/messages$/)).toHaveLength(0);
  });

  it("a look-up Discord refuses (no Read Message History) posts anyway, with a warn log line", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    h.fake.failNext("GET", /^\/channels\/\d+\/messages$/, 403, 50001, "Missing Access");
    const sent = await writerFor(h.adapter).postMessage(
      chat,
      { author: bob, text: "Posted regardless." },
      observer(true),
    );
    expect(sent.ids).toHaveLength(1);
    expect(h.fake.messagesIn(h.general.id).map((message) => message.content)).toEqual(["Posted regardless."]);
    expect(
      h.lines.some((line) => line.level === 40 && String(line.msg).includes("could not look for an earlier run's")),
    ).toBe(true);
  });
});
