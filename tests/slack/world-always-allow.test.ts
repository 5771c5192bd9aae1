import { afterEach, describe, expect, it } from "vitest";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { approvalsConfig, echoAgent, echoTheWord } from "../world/approval-world.js";
import { ana, channel, olga, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function buttonsOf(card: SlackStoredMessage): { text: { text: string }; value: string; confirm?: unknown }[] {
  const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
    | { elements: { text: { text: string }; value: string; confirm?: unknown }[] }
    | undefined;
  return actions?.elements ?? [];
}

describe("Always allow from a Slack card", () => {
  it("the button is on the card (confirmed); the requester not listed by id is refused privately; the approver's press runs the call and the same call in another thread runs with no card", async () => {
    const alice = echoTheWord();
    t = await worldOnSlack({
      mode: "http",
      agents: echoAgent(alice),
      world: {
        defaultAgent: "alice",
        approvers: { slack: ["requester", olga] },
        approvals: approvalsConfig({ allowAlways: true }),
      },
      chats: { [channel]: "main" },
    });
    const root = await t.say(ana, "run echo hello");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    const buttons = buttonsOf(card);
    expect(buttons.map((button) => button.text.text)).toEqual([
      "Approve once",
      "For session",
      "Deny",
      "Always allow",
      "Deny with reason…",
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect(buttons[3]?.value).toBe(`${approval?.id}|always`);
    expect(buttons[3]?.confirm).toMatchObject({ title: { text: "Always allow this call?" } });

    await t.press(ana, card, /Always allow/);
    expect(t.fake.ephemerals.map((each) => [each.user, each.text])).toEqual([
      [ana, "You are not allowed to always allow this call: only approvers listed by id may; nothing was decided."],
    ]);
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    await t.press(olga, card, /Always allow/);
    expect(JSON.stringify(card.blocks)).toContain("Always allowed by Olga");
    expect(t.fake.ephemerals.at(-1)?.text).toMatch(/^Always allowed: rule \w+, until .* UTC\. This call runs now\.$/);
    expect(t.replies(root.ts).at(-1)?.text).toMatch(/^tool said: exit code: 0 .*hello/);

    // Another thread of the channel (another chat of the world): no card, it runs.
    const again = await t.say(ana, "run echo hello");
    expect(t.cards(again.ts)).toHaveLength(0);
    expect(t.replies(again.ts).at(-1)?.text).toMatch(/^tool said: exit code: 0 .*hello/);
    const [rule] = await t.world.store.listStoredRules({});
    expect(rule).toMatchObject({ useCount: 1, author: { id: olga, name: "Olga", platform: "slack" } });

    // Other arguments: a card again.
    const other = await t.say(ana, "run echo bye");
    expect(t.cards(other.ts)).toHaveLength(1);
  });
});
