import { afterEach, describe, expect, it } from "vitest";
import type { FakeDiscordUser, FakeInteraction, StoredDiscordMessage } from "../fakes/discord-api.js";
import { approvalsConfig, echoAgent, echoWhenAsked } from "../world/approval-world.js";
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
  label: string;
  custom_id: string;
}

function cards(t: WorldDiscord): StoredDiscordMessage[] {
  return t.posts().filter((message) => message.content.includes("wants to run"));
}

function buttonsOf(card: StoredDiscordMessage): Button[] {
  return (card.components as { components: Button[] }[]).flatMap((row) => row.components);
}

function customId(card: StoredDiscordMessage, label: string): string {
  const found = buttonsOf(card).find((each) => each.label === label);
  expect(found, label).toBeDefined();
  return found?.custom_id ?? "";
}

async function submit(
  t: WorldDiscord,
  opened: FakeInteraction,
  card: StoredDiscordMessage,
  user: FakeDiscordUser,
  value: string,
): Promise<FakeInteraction> {
  const submitted = t.fake.submitModal({ opened, message: card, user, value });
  await t.world.waitFor(
    () =>
      submitted.callbacks.length > 0 &&
      (submitted.callbacks[0]?.type !== 6 || submitted.ephemeral.length + submitted.followups.length > 0),
  );
  await t.world.idle();
  return submitted;
}

async function world(toolTexts: string[], approvals: Record<string, unknown> = {}): Promise<WorldDiscord> {
  discord = await discordWorld();
  return worldOnDiscord({
    discord,
    agents: echoAgent(echoWhenAsked(toolTexts)),
    world: {
      approvers: { discord: [discord.olga.id] },
      approvals: approvalsConfig(approvals),
    },
    chats: (fake) => ({ [fake.general.id]: "main" }),
  });
}

describe("Deny with a reason and edit on a Discord card", () => {
  it("a reason typed in the modal reaches the model verbatim; someone not allowed is refused privately; the same call is denied again without a card until /reset", async () => {
    const toolTexts: string[] = [];
    t = await world(toolTexts);
    await t.say(t.ana, "@alice run echo hello");
    const [card] = cards(t);
    if (!card) throw new Error("no card");
    expect(buttonsOf(card).map((each) => each.label)).toEqual([
      "Approve once",
      "For session",
      "Deny",
      "Deny with reason…",
    ]);

    const evePress = await t.press(t.eve, card, customId(card, "Deny with reason…"));
    expect(evePress.callbacks[0]).toMatchObject({ type: 9, data: { title: "Deny with a reason" } });
    const eves = await submit(t, evePress, card, t.eve, "because I say so");
    expect(eves.ephemeral[0]).toMatch(/^You are not allowed to decide this approval/);
    const [approval] = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    const olgaPress = await t.press(t.olga, card, customId(card, "Deny with reason…"));
    await submit(t, olgaPress, card, t.olga, "not on fridays");
    expect(toolTexts).toEqual(["denied by Olga: not on fridays"]);
    expect(t.fake.message(card.id)?.content).toMatch(/^\*\*❌ Denied by Olga: not on fridays\*\*/);

    // Decided cards are edited (their text changes): counted by approvals, one per card.
    await t.say(t.ana, "@alice run echo hello");
    expect(await t.world.store.listApprovals({ chatKey: t.chatKeyOf() })).toHaveLength(1);
    expect(toolTexts.at(-1)).toBe("denied: the same call was denied by Olga (not on fridays)");

    await t.say(t.olga, "/reset");
    await t.say(t.ana, "@alice run echo hello");
    expect(await t.world.store.listApprovals({ chatKey: t.chatKeyOf() })).toHaveLength(2);
    expect(cards(t)).toHaveLength(1);
  });

  it("no Edit button when approvals.edit is off; with it on, the modal holds the JSON, an invalid edit is refused privately and a valid one runs", async () => {
    const toolTexts: string[] = [];
    t = await world(toolTexts, { edit: true });
    await t.say(t.ana, "@alice run echo hello");
    const [card] = cards(t);
    if (!card) throw new Error("no card");
    expect(buttonsOf(card).map((each) => each.label)).toEqual([
      "Approve once",
      "For session",
      "Deny",
      "Deny with reason…",
      "Edit…",
    ]);
    const opened = await t.press(t.olga, card, customId(card, "Edit…"));
    const modal = opened.callbacks[0]?.data as { components: { components: { value: string }[] }[] };
    expect(JSON.parse(modal.components[0]?.components[0]?.value ?? "")).toEqual({ command: "echo", args: ["hello"] });

    const invalid = await submit(t, opened, card, t.olga, '{"command": 5}');
    expect(invalid.ephemeral[0]).toMatch(/^That edit does not fit shell_cmd: .*Nothing changed\.$/);
    expect(invalid.followups).toEqual([]);
    const [approval] = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    await submit(t, opened, card, t.olga, '{"command":"echo","args":["edited"]}');
    expect(toolTexts.at(-1)).toMatch(
      /^note: Olga edited the arguments before it ran: \{"command":"echo","args":\["edited"\]\}\nexit code: 0[\s\S]*edited/,
    );
    const decided = t.fake.message(card.id)?.content ?? "";
    expect(decided).toMatch(/^\*\*✅ Approved once, edited by Olga\*\*/);
    expect(decided).toContain('"edited"');
  });

  it("offers no Edit button when approvals.edit is off", async () => {
    t = await world([]);
    await t.say(t.ana, "@alice run echo hello");
    expect(buttonsOf(cards(t)[0] as StoredDiscordMessage).map((each) => each.label)).not.toContain("Edit…");
  });
});
