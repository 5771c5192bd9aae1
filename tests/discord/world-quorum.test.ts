import { afterEach, describe, expect, it } from "vitest";
import type { StoredDiscordMessage } from "../fakes/discord-api.js";
import { approvalsConfig, echoAgent, echoTheWord } from "../world/approval-world.js";
import { type DiscordWorld, discordWorld } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
let discord: DiscordWorld | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await discord?.fake.close();
  discord = undefined;
});

/** The step's text with a fence and a broadcast in it, then `echo <word>`. */
const reasoning = "Let me check ``` first @everyone";
function customId(card: StoredDiscordMessage, label: string): string {
  const buttons = (card.components as { components: { label: string; custom_id: string }[] }[]).flatMap(
    (row) => row.components,
  );
  const found = buttons.find((each) => each.label === label);
  expect(found).toBeDefined();
  return found?.custom_id ?? "";
}

describe("Quorum on a Discord card", () => {
  it("reasoning in a code block above the arguments; the requester's press does not count; the card is redrawn with 1 of 2 and keeps its buttons; the second approver decides", async () => {
    discord = await discordWorld();
    t = await worldOnDiscord({
      discord,
      agents: echoAgent(echoTheWord(reasoning)),
      world: {
        approvers: { discord: ["requester", discord.olga.id, discord.eve.id] },
        approvals: approvalsConfig({ quorum: { shell_cmd: 2 } }),
      },
      chats: (fake) => ({ [fake.general.id]: "main" }),
    });
    await t.say(t.ana, "@alice run echo hello");
    const card = t.posts().find((message) => message.content.includes("wants to run"));
    if (!card) throw new Error("no card");
    // Escaped as the arguments are: a code block whose fence cannot be closed from inside.
    expect(card.content).toContain("```\nLet me check `\u200d`` first @everyone\n```");
    expect(card.content.indexOf("Let me check")).toBeLessThan(card.content.indexOf('"command"'));

    const own = await t.press(t.ana, card, customId(card, "Approve once"));
    expect(own.ephemeral).toEqual([
      "Your approval does not count: you asked for this call, and 2 other approvers must approve it (0 of 2).",
    ]);
    const first = await t.press(t.olga, card, customId(card, "Approve once"));
    expect(first.ephemeral).toEqual(["Counted: 1 of 2: Olga. It runs after 1 more approval."]);
    await t.world.idle();
    const redrawn = t.fake.message(card.id);
    expect(redrawn?.content).toContain("**Approvals: 1 of 2: Olga**");
    expect(redrawn?.components.length).toBe(1);

    const second = await t.press(t.eve, card, customId(card, "For session"));
    expect(second.ephemeral).toEqual(["Approved for this session."]);
    await t.world.waitFor(() => t?.posts().at(-1)?.content.startsWith("tool said") ?? false);
    expect(t.fake.message(card.id)?.content).toMatch(/^\*\*✅ Approved for this session by Olga, Eve\*\*/);
    expect(t.fake.message(card.id)?.components).toEqual([]);
  });
});
