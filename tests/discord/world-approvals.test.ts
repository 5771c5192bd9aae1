import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { StoredDiscordMessage } from "../fakes/discord-api.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { type DiscordWorld, discordWorld, mainToken } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A model that runs `echo <word>` once, then answers with what the tool said. */
function echoOnce(word = "hello") {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

interface Button {
  type: number;
  style: number;
  label: string;
  custom_id: string;
}

function cardOf(t: WorldDiscord): { card: StoredDiscordMessage; buttons: Button[] } {
  const cards = t.posts().filter((message) => message.components.length > 0);
  expect(cards).toHaveLength(1);
  const card = cards[0] as StoredDiscordMessage;
  const buttons = (card.components as { components: Button[] }[]).flatMap((row) => row.components);
  return { card, buttons };
}

function button(buttons: Button[], label: string): string {
  const found = buttons.find((each) => each.label === label);
  expect(found).toBeDefined();
  return found?.custom_id ?? "";
}

describe("an approval in a Discord channel through the world engine", () => {
  it("buttons; someone else's press gets an ephemeral refusal only; an approver named by role decides: card edited, tool ran, final answer", async () => {
    const alice = echoOnce();
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { discord: ["role:Ops"] } },
      chats: (discord) => ({ [discord.general.id]: "main" }),
    });
    await t.say(t.ana, "@alice run echo");

    const { card, buttons } = cardOf(t);
    expect(card.sentByToken).toBe(mainToken);
    expect(card.content).toContain("**alice** wants to run `shell_cmd`");
    expect(card.content).toContain('"echo"');
    expect(buttons.map((each) => [each.label, each.style])).toEqual([
      ["Approve once", 3],
      ["For session", 1],
      ["Deny", 4],
      ["Deny with reason…", 2],
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    for (const each of buttons) expect(each.custom_id).toMatch(new RegExp(`^rt:${approval?.id}:[osdr]$`));
    expect(alice.requests).toHaveLength(1);

    // Eve has no Ops role: an ephemeral reply, nothing else.
    const refused = await t.press(t.eve, card, button(buttons, "Approve once"));
    expect(refused.callbacks.map((each) => each.type)).toEqual([4]);
    expect(refused.ephemeral).toEqual([
      "You are not allowed to decide this approval: only this world's approvers may.",
    ]);
    expect(t.fake.message(card.id)?.editCount).toBe(0);
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);

    // Ana asked, but the list names only Ops: she may not either.
    const asker = await t.press(t.ana, card, button(buttons, "Approve once"));
    expect(asker.ephemeral).toHaveLength(1);

    // Olga is in Ops.
    const decided = await t.press(t.olga, card, button(buttons, "Approve once"));
    expect(decided.callbacks.map((each) => each.type)).toEqual([6]);
    expect(decided.ephemeral).toEqual(["Approved once."]);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    const edited = t.fake.message(card.id);
    expect(edited?.components).toEqual([]);
    expect(edited?.content).toMatch(/^\*\*✅ Approved once by Olga\*\*\n\*\*alice\*\* · `shell_cmd`/);
    expect(await t.world.store.getApproval(approval?.id ?? "")).toMatchObject({
      state: "approved",
      decidedByName: "Olga",
    });
    const last = t.posts().at(-1);
    expect(last?.content).toMatch(/^tool said: exit code: 0 .*hello/);

    // A later press on the old buttons changes nothing.
    const late = await t.press(t.olga, card, button(buttons, "Deny"));
    expect(late.ephemeral).toEqual(["Already decided by Olga (approved once)."]);
    expect(alice.requests).toHaveLength(2);
  });

  it("a stranger's own server reached through the catch-all: their role named Ops and their ownership count for nothing; `@alice run id` approved by themselves runs nothing", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
      return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "id" } }] };
    });
    let theirs = "";
    let theirGuild = "";
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { discord: ["role:Ops", "admins"] } },
      chats: (discord) => ({ [discord.general.id]: "main", "*": "main" }),
      beforeStart: (discord) => {
        const guild = discord.fake.addGuild("Eve's server", ["Ops"]);
        discord.fake.addMember(guild.id, discord.eve, ["Ops"]);
        const stored = discord.fake.state.guilds.get(guild.id);
        if (stored) stored.ownerId = discord.eve.id;
        theirs = discord.fake.addTextChannel(guild.id, "pwn").id;
        theirGuild = guild.id;
      },
    });
    await t.say(t.eve, "@alice run id", { channelId: theirs });
    const card = t.posts(theirs).find((post) => post.components.length > 0) as StoredDiscordMessage;
    expect(card).toBeDefined();
    const buttons = (card.components as { components: Button[] }[]).flatMap((row) => row.components);
    const refused = await t.press(t.eve, card, button(buttons, "Approve once"), String(1n << 3n));
    expect(refused.ephemeral).toEqual([
      "You are not allowed to decide this approval: only this world's approvers may.",
    ]);
    const [approval] = await t.world.store.listApprovals({
      chatKey: chatKey({ platform: "discord", workspace: theirGuild, channel: theirs }),
    });
    expect(approval?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);
    expect(
      t
        .posts(theirs)
        .map((post) => post.content)
        .join("\n"),
    ).not.toContain("uid=");

    // In the channel bound by id, the owner's Ops decide as before.
    await t.say(t.ana, "@alice run id");
    const ours = t.posts().find((post) => post.components.length > 0) as StoredDiscordMessage;
    const ourButtons = (ours.components as { components: Button[] }[]).flatMap((row) => row.components);
    await t.press(t.olga, ours, button(ourButtons, "Approve once"));
    await t.world.waitFor(() => alice.requests.length === 3);
    await t.world.idle();
    expect(t.posts().at(-1)?.content).toContain("uid=");
  });

  it("a role given as `role:<guild id>/<name>` or by its id decides in a channel bound by id", async () => {
    const entries: ((discord: DiscordWorld) => string)[] = [
      (discord) => `role:${discord.guildId}/Ops`,
      (discord) =>
        `role:${discord.fake.state.guilds.get(discord.guildId)?.roles.find((role) => role.name === "Ops")?.id}`,
    ];
    for (const entry of entries) {
      const discord = await discordWorld();
      try {
        const model = echoOnce();
        const world = await worldOnDiscord({
          discord,
          agents: [{ name: "alice", provider: model, tools: ["shell_cmd"] }],
          world: { approvers: { discord: [entry(discord)] } },
          chats: (fake) => ({ [fake.general.id]: "main" }),
        });
        t = world;
        await world.say(world.ana, "@alice run echo");
        const { card, buttons } = cardOf(world);
        expect((await world.press(world.eve, card, button(buttons, "Approve once"))).ephemeral).toHaveLength(1);
        const decided = await world.press(world.olga, card, button(buttons, "Approve once"));
        expect(decided.ephemeral).toEqual(["Approved once."]);
        await world.close();
        t = undefined;
      } finally {
        await discord.fake.close();
      }
    }
  });

  it("arguments too long for the card are attached in full as arguments.json", async () => {
    const long = "x".repeat(3000);
    const alice = echoOnce(long);
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(t.ana, "@alice run echo");
    const { card } = cardOf(t);
    expect(card.content.length).toBeLessThanOrEqual(2000);
    expect(card.content).toMatch(
      /The arguments are 3,0\d\d characters long: all of them are attached as `arguments.json`/,
    );
    expect(card.attachments).toHaveLength(1);
    expect(card.attachments[0]?.filename).toBe("arguments.json");
    expect(JSON.parse(card.attachments[0]?.content ?? "{}")).toEqual({ command: "echo", args: [long] });
  });

  it("a press on a button that is not ours is answered privately", async () => {
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }] });
    await t.say(t.ana, "@alice run echo");
    const { card } = cardOf(t);
    const pressed = await t.press(t.olga, card, "something-else");
    expect(pressed.ephemeral).toEqual(["This button is no longer valid."]);
  });
});
