import { afterEach, describe, expect, it } from "vitest";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { approvalsConfig, echoAgent, echoWhenAsked } from "../world/approval-world.js";
import { ana, channel, eve, olga, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function labelsOf(card: SlackStoredMessage): string[] {
  const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
    | { elements: { text: { text: string } }[] }
    | undefined;
  return actions?.elements.map((element) => element.text.text) ?? [];
}

async function world(toolTexts: string[], approvals: Record<string, unknown> = {}): Promise<WorldSlack> {
  return worldOnSlack({
    mode: "http",
    agents: echoAgent(echoWhenAsked(toolTexts)),
    world: {
      defaultAgent: "alice",
      approvers: { slack: [olga] },
      approvals: approvalsConfig(approvals),
    },
    chats: { [channel]: "main" },
  });
}

describe("Deny with a reason and edit on a Slack card", () => {
  it("a reason typed in the modal reaches the model verbatim; someone not allowed is refused; the same call is denied again without a card until /reset", async () => {
    const toolTexts: string[] = [];
    t = await world(toolTexts);
    const root = await t.say(ana, "run echo hello");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    expect(labelsOf(card)).toEqual(["Approve once", "For session", "Deny", "Deny with reason…"]);

    // Eve may not decide: her modal's reason is refused privately, nothing is decided.
    await t.press(eve, card, /Deny with reason/);
    const eves = t.fake.views.at(-1);
    expect(eves?.view).toMatchObject({ type: "modal", callback_id: "roundtable_reason" });
    const refused = await t.fake.submitView({ user: eve, viewId: eves?.id ?? "", value: "because I say so" });
    expect(refused.status).toBe(200);
    await t.world.idle();
    expect(t.fake.ephemerals.at(-1)).toMatchObject({ user: eve, text: expect.stringMatching(/^You are not allowed/) });
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    await t.press(olga, card, /Deny with reason/);
    const olgas = t.fake.views.at(-1);
    await t.fake.submitView({ user: olga, viewId: olgas?.id ?? "", value: "not on fridays" });
    await t.world.idle();
    expect(toolTexts).toEqual(["denied by Olga: not on fridays"]);
    expect(JSON.stringify(card.blocks)).toContain("Denied by Olga: not on fridays");

    // The same call in the same thread: denied at once, no card.
    await t.say(ana, "run echo hello", { threadTs: root.ts });
    expect(t.cards(root.ts)).toHaveLength(1);
    expect(toolTexts.at(-1)).toBe("denied: the same call was denied by Olga (not on fridays)");

    await t.say(olga, "/reset", { threadTs: root.ts });
    await t.say(ana, "run echo hello", { threadTs: root.ts });
    expect(t.cards(root.ts)).toHaveLength(2);
  });

  it("no Edit button when approvals.edit is off; with it on, the modal holds the JSON, an invalid edit is refused in the modal and a valid one runs", async () => {
    const off: string[] = [];
    t = await world(off);
    const plain = await t.say(ana, "run echo hello");
    expect(labelsOf(t.cards(plain.ts)[0] as SlackStoredMessage)).not.toContain("Edit…");
    await t.close();

    const toolTexts: string[] = [];
    t = await world(toolTexts, { edit: true });
    const root = await t.say(ana, "run echo hello");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    expect(labelsOf(card)).toEqual(["Approve once", "For session", "Deny", "Deny with reason…", "Edit…"]);
    await t.press(olga, card, /Edit/);
    const opened = t.fake.views.at(-1);
    expect(opened?.view).toMatchObject({ callback_id: "roundtable_edit" });
    const blocks = (opened?.view.blocks ?? []) as { element: { initial_value: string } }[];
    const initial = blocks[0]?.element.initial_value;
    expect(JSON.parse(initial ?? "")).toEqual({ command: "echo", args: ["hello"] });

    const ephemeralsBefore = t.fake.ephemerals.length;
    const invalid = await t.fake.submitView({ user: olga, viewId: opened?.id ?? "", value: '{"command": 5}' });
    expect(JSON.parse(invalid.body)).toMatchObject({
      response_action: "errors",
      errors: { roundtable_input: expect.stringMatching(/^That edit does not fit shell_cmd: /) },
    });
    await t.world.idle();
    expect(t.fake.ephemerals.length).toBe(ephemeralsBefore);
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");

    await t.fake.submitView({ user: olga, viewId: opened?.id ?? "", value: '{"command":"echo","args":["edited"]}' });
    await t.world.idle();
    expect(toolTexts.at(-1)).toMatch(
      /^note: Olga edited the arguments before it ran: \{"command":"echo","args":\["edited"\]\}\nexit code: 0[\s\S]*edited/,
    );
    expect(JSON.stringify(card.blocks)).toContain("Approved once, edited by Olga");
    expect(JSON.stringify(card.blocks)).toContain("edited");
    expect(t.replies(root.ts).at(-1)?.text).toMatch(/^tool said: note: Olga edited/);
  });
});
