import { afterEach, describe, expect, it } from "vitest";
import { approvalsConfigSchema } from "../../src/config/schema.js";
import type { StoredDiscordMessage } from "../fakes/discord-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { type DiscordWorld, discordWorld } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

// Cards routed to approvers' Discord DMs (docs/approvals.md, "Where approval cards go").

let t: WorldDiscord | undefined;
let fake: DiscordWorld | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.fake.close();
  t = undefined;
  fake = undefined;
});

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

function onceButton(card: StoredDiscordMessage): string {
  const buttons = (card.components as { components: { label: string; custom_id: string }[] }[]).flatMap(
    (row) => row.components,
  );
  return buttons.find((each) => each.label === "Approve once")?.custom_id ?? "";
}

describe("approval cards routed to Discord DMs", () => {
  it("route dm: the card goes to the approver's DM channel, the channel gets one line, an id Discord opens no DM with is skipped; the DM press runs the call", async () => {
    const alice = echoOnce();
    const discord = await discordWorld();
    fake = discord;
    t = await worldOnDiscord({
      discord,
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: {
        approvers: { discord: [discord.olga.id, "4040404040"] },
        approvals: approvalsConfigSchema.parse({ route: "dm" }),
      },
      chats: () => ({ [discord.general.id]: "main" }),
    });
    await t.say(t.ana, "@alice run echo");
    await t.world.waitFor(() => dmCards(t as WorldDiscord).length === 1);
    await t.world.idle();

    expect(t.posts().filter((post) => post.components.length > 0)).toHaveLength(0);
    expect(t.posts().map((post) => post.content)).toContain("alice waits for approval of shell_cmd (asked privately)");
    const [card] = dmCards(t);
    expect(card?.content).toContain("wants to run `shell_cmd`");
    expect(t.world.logs()).toContain("approver skipped: their DM could not be opened");

    await t.press(t.olga, card as StoredDiscordMessage, onceButton(card as StoredDiscordMessage));
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    const shown = t.fake.state.messages.get(card?.id ?? "");
    expect(shown?.content).toContain("Approved once by Olga in a direct message");
    expect(t.posts().at(-1)?.content).toMatch(/tool said: .*hello/);
  });
});

/** The cards in Olga's DM channel with the bot. */
function dmCards(t: WorldDiscord): StoredDiscordMessage[] {
  const dm = [...t.fake.state.channels.values()].find(
    (channel) => channel.type === 1 && channel.recipients?.[0]?.id === t.olga.id,
  );
  return dm ? t.posts(dm.id).filter((post) => post.components.length > 0) : [];
}
