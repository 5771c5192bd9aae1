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

interface Button {
  style: number;
  label: string;
  custom_id: string;
}

function pendingCards(t: WorldDiscord): StoredDiscordMessage[] {
  return t.posts().filter((message) => message.components.length > 0 && message.content.includes("wants to run"));
}

function buttonsOf(card: StoredDiscordMessage): Button[] {
  return (card.components as { components: Button[] }[]).flatMap((row) => row.components);
}

function customId(card: StoredDiscordMessage, label: string): string {
  const found = buttonsOf(card).find((each) => each.label === label);
  expect(found).toBeDefined();
  return found?.custom_id ?? "";
}

describe("Always allow from a Discord card", () => {
  it("the button is on the card; someone who qualifies by role and as requester but not by id is refused ephemerally; the listed approver's press runs the call, the same call then runs with no card, other arguments get one", async () => {
    discord = await discordWorld();
    const alice = echoTheWord();
    t = await worldOnDiscord({
      discord,
      agents: echoAgent(alice),
      world: {
        approvers: { discord: ["requester", "role:Dev", discord.olga.id] },
        approvals: approvalsConfig({ allowAlways: true }),
      },
      chats: (fake) => ({ [fake.general.id]: "main" }),
    });
    await t.say(t.ana, "@alice run echo hello");
    const [card] = pendingCards(t);
    if (!card) throw new Error("no card");
    expect(buttonsOf(card).map((each) => [each.label, each.style])).toEqual([
      ["Approve once", 3],
      ["For session", 1],
      ["Deny", 4],
      ["Always allow", 2],
      ["Deny with reason…", 2],
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    expect(customId(card, "Always allow")).toBe(`rt:${approval?.id}:a`);

    // Ana asked and has the Dev role, but is not listed by id.
    const refused = await t.press(t.ana, card, customId(card, "Always allow"));
    expect(refused.ephemeral).toEqual([
      "You are not allowed to always allow this call: only approvers listed by id may; nothing was decided.",
    ]);
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    const decided = await t.press(t.olga, card, customId(card, "Always allow"));
    expect(decided.ephemeral[0]).toMatch(/^Always allowed: rule \w+, until .* UTC\. This call runs now\.$/);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    expect(t.fake.message(card.id)?.content).toMatch(/^\*\*✅ Always allowed by Olga\*\*/);
    expect(t.posts().at(-1)?.content).toMatch(/^tool said: exit code: 0 .*hello/);

    await t.say(t.ana, "@alice run echo hello");
    expect(pendingCards(t)).toHaveLength(0);
    expect(t.posts().at(-1)?.content).toMatch(/^tool said: exit code: 0 .*hello/);
    expect((await t.world.store.listStoredRules({}))[0]).toMatchObject({
      useCount: 1,
      author: { id: discord.olga.id, name: "Olga", platform: "discord" },
    });

    await t.say(t.ana, "@alice run echo bye");
    expect(pendingCards(t)).toHaveLength(1);

    // The application command: `/rules` lists, `/rules revoke:<id>` revokes; then a card again.
    const [rule] = await t.world.store.listStoredRules({});
    const listed = t.fake.slashCommand({ channelId: t.general.id, user: t.olga, name: "rules" });
    await t.world.waitFor(() => listed.ephemeral.length === 1);
    expect(listed.ephemeral[0]).toContain(`1. ${rule?.id} · alice · shell_cmd`);
    // Eve is no approver (Ana, through role:Dev, would be one: revoking only ever asks more).
    const byEve = t.fake.slashCommand({
      channelId: t.general.id,
      user: t.eve,
      name: "rules",
      options: [{ name: "revoke", type: 3, value: rule?.id ?? "" }],
    });
    await t.world.waitFor(() => byEve.ephemeral.length === 1);
    expect(byEve.ephemeral[0]).toBe("Only this world's approvers may revoke a rule.");
    expect((await t.world.store.getStoredRule(rule?.id ?? ""))?.revokedAt).toBeUndefined();
    const revoke = t.fake.slashCommand({
      channelId: t.general.id,
      user: t.olga,
      name: "rules",
      options: [{ name: "revoke", type: 3, value: rule?.id ?? "" }],
    });
    await t.world.waitFor(() => revoke.ephemeral.length === 1);
    expect(revoke.ephemeral[0]).toBe(
      `Rule ${rule?.id} revoked by Olga: alice's shell_cmd with these arguments asks again.`,
    );
    await t.say(t.ana, "@alice run echo hello");
    // A card for it (the earlier card for "bye" was closed by the new message).
    const approvals = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    expect(approvals).toHaveLength(3);
    expect(approvals.at(-1)?.state).toBe("pending");
    expect(pendingCards(t)).toHaveLength(1);
  });
});
