import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/providers/model-provider.js";
import type { StoredDiscordMessage } from "../fakes/discord-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { discordWorld, waitFor } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

const open: WorldDiscord[] = [];
afterEach(async () => {
  for (const each of open.splice(0)) await each.close();
});

async function track(world: Promise<WorldDiscord>): Promise<WorldDiscord> {
  const opened = await world;
  open.push(opened);
  return opened;
}

describe("the Discord gateway connection", () => {
  it("after a drop the client resumes: what it missed is answered, what it saw again is not answered twice", async () => {
    const model = new ScriptedProvider((request) => ({
      text: `answer to ${ScriptedProvider.lastText(request).split(": ").at(-1)}`,
    }));
    const t = await track(
      worldOnDiscord({ agents: [{ name: "alice", provider: model }], world: { defaultAgent: "alice" } }),
    );
    const first = await t.say(t.ana, "one");
    expect(model.requests).toHaveLength(1);

    // The connection drops; a message is sent while the bot is away; the resume replays it,
    // and (as a lagging sequence number would) the one before it too.
    t.fake.gateway.replayOverlap = 8;
    t.fake.gateway.drop();
    await waitFor(() => !t.fake.gateway.isConnected());
    const missed = t.fake.userMessage({ channelId: t.general.id, author: t.ana, content: "two" });
    await waitFor(() => t.fake.gateway.resumes.length === 1 && t.adapter.isConnected(), 10_000);
    await t.settle(missed);
    // The replayed copy of the first message reached the world and was dropped as a duplicate.
    await waitFor(() => t.lines.some((line) => line.messageId === first.id && line.status === "duplicate"));
    await t.world.idle();

    expect(t.fake.gateway.identifies).toHaveLength(1);
    expect(t.fake.gateway.resumes[0]?.sessionId).toBe(t.fake.gateway.sessions[0]?.id);
    expect(model.requests).toHaveLength(2);
    expect(t.posts().map((post) => post.content)).toEqual(["answer to one", "answer to two"]);
  });

  it("a reconnect request (op 7) resumes the same session", async () => {
    const model = new ScriptedProvider(() => ({ text: "here" }));
    const t = await track(
      worldOnDiscord({ agents: [{ name: "alice", provider: model }], world: { defaultAgent: "alice" } }),
    );
    t.fake.gateway.requestReconnect();
    await waitFor(() => t.fake.gateway.resumes.length === 1 && t.adapter.isConnected(), 10_000);
    await t.say(t.ana, "still there?");
    expect(t.fake.gateway.identifies).toHaveLength(1);
    expect(t.posts().map((post) => post.content)).toEqual(["here"]);
  });

  it("a restart with a card pending: a press after it completes the turn once", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const discord = await discordWorld();
    try {
      const script = (request: ModelRequest) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
        return {
          text: "Let me check.",
          toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["restarted"] } }],
        };
      };
      const before = new ScriptedProvider(script);
      const first = await worldOnDiscord({
        discord,
        databaseUrl,
        keepDatabase: true,
        agents: [{ name: "alice", provider: before, tools: ["shell_cmd"] }],
        world: { approvers: { discord: ["role:Ops"] } },
        chats: (fake) => ({ [fake.general.id]: "main" }),
      });
      await first.say(discord.ana, "@alice run echo");
      const card = first.posts().find((post) => post.components.length > 0) as StoredDiscordMessage;
      expect(card).toBeDefined();
      await first.close();

      const after = new ScriptedProvider(script);
      const second = await track(
        worldOnDiscord({
          discord,
          databaseUrl,
          keepDatabase: true,
          agents: [{ name: "alice", provider: after, tools: ["shell_cmd"] }],
          world: { approvers: { discord: ["role:Ops"] } },
          chats: (fake) => ({ [fake.general.id]: "main" }),
        }),
      );
      const customId = (
        card.components as { components: { label: string; custom_id: string }[] }[]
      )[0]?.components.find((button) => button.label === "Approve once")?.custom_id;
      const press = await second.press(discord.olga, card, customId ?? "");
      expect(press.callbacks.map((each) => each.type)).toEqual([6]);
      await second.world.waitFor(() => after.requests.length === 1);
      await second.world.idle();
      // A second press (a double click) changes nothing.
      const again = await second.press(discord.olga, card, customId ?? "");
      expect(again.ephemeral).toEqual(["Already decided by Olga (approved once)."]);

      expect(before.requests).toHaveLength(1);
      expect(after.requests).toHaveLength(1);
      const finals = second.posts().filter((post) => post.content.startsWith("tool said:"));
      expect(finals).toHaveLength(1);
      expect(finals[0]?.content).toMatch(/exit code: 0 .*restarted/);
      expect(discord.fake.message(card.id)?.content).toMatch(/^\*\*✅ Approved once by Olga\*\*/);
    } finally {
      for (const each of open.splice(0)) await each.close();
      await discord.fake.close();
    }
  });
});
