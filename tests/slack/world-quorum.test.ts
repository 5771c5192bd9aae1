import { afterEach, describe, expect, it } from "vitest";
import { approvalsConfig, echoAgent, echoTheWord } from "../world/approval-world.js";
import { ana, channel, eve, olga, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The step's text, with what Slack would read as markup (a broadcast, a link), then `echo <word>`. */
const reasoning = "Checking first: <!channel> *now* & <https://evil.example|click>";
function blocksText(blocks: unknown[] | undefined): string {
  return JSON.stringify(blocks ?? []);
}

describe("Quorum on a Slack card", () => {
  it("reasoning escaped above the arguments; the requester's press does not count; 1 of 2 on the card, buttons kept; the second approver decides; a denial denies", async () => {
    t = await worldOnSlack({
      mode: "http",
      agents: echoAgent(echoTheWord(reasoning)),
      world: {
        defaultAgent: "alice",
        approvers: { slack: ["requester", olga, eve] },
        approvals: approvalsConfig({ quorum: { shell_cmd: 2 } }),
      },
      chats: { [channel]: "main" },
    });
    const root = await t.say(ana, "run echo hello");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    const shown = blocksText(card.blocks);
    // In a code block, escaped: no broadcast, no link, above the arguments.
    expect(shown).toContain("Checking first: &lt;!channel&gt; *now* &amp; &lt;https://evil.example|click&gt;");
    expect(shown).not.toContain("<!channel>");
    expect(shown.indexOf("Checking first")).toBeLessThan(shown.indexOf("command"));
    expect(shown).toContain("Approvals: 0 of 2");

    await t.press(ana, card, /Approve once/);
    expect(t.fake.ephemerals.at(-1)).toMatchObject({
      user: ana,
      text: "Your approval does not count: you asked for this call, and 2 other approvers must approve it (0 of 2).",
    });
    await t.press(olga, card, /Approve once/);
    expect(t.fake.ephemerals.at(-1)).toMatchObject({
      user: olga,
      text: "Counted: 1 of 2: Olga. It runs after 1 more approval.",
    });
    expect(blocksText(card.blocks)).toContain("Approvals: 1 of 2: Olga");
    expect(blocksText(card.blocks)).toContain('"type":"actions"');
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect(approval?.state).toBe("pending");

    await t.press(eve, card, /Approve once/);
    expect(blocksText(card.blocks)).toContain("Approved once by Olga, Eve");
    expect(blocksText(card.blocks)).not.toContain('"type":"actions"');
    expect(t.replies(root.ts).at(-1)?.text).toMatch(/^tool said: exit code: 0 .*hello/);
    expect(await t.world.store.listApprovalVotes(approval?.id ?? "")).toMatchObject([
      { voterId: olga, voterName: "Olga", platform: "slack", choice: "once" },
      { voterId: eve, voterName: "Eve", platform: "slack", choice: "once" },
    ]);

    // Another call: Olga approves, Eve denies: denied, nothing runs.
    const other = await t.say(ana, "run echo bye");
    const [second] = t.cards(other.ts);
    if (!second) throw new Error("no second card");
    await t.press(olga, second, /Approve once/);
    await t.press(eve, second, /Deny/);
    expect(blocksText(second.blocks)).toContain("Denied by Eve");
    expect(t.replies(other.ts).at(-1)?.text).toMatch(/^tool said: denied by Eve/);
  });

  it("reminds the approver once and escalates once in the card's thread, with real mentions; the escalated person may decide only then", async () => {
    t = await worldOnSlack({
      mode: "http",
      agents: echoAgent(echoTheWord(reasoning)),
      world: {
        defaultAgent: "alice",
        approvers: { slack: [olga] },
        approvalTimeout: "10m",
        approvals: approvalsConfig({ remind: "1s", escalate: { after: "5s", to: { slack: [eve] } } }),
      },
      chats: { [channel]: "main" },
    });
    const root = await t.say(ana, "run echo hello");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    await t.press(eve, card, /Approve once/);
    expect(t.fake.ephemerals.at(-1)?.text).toMatch(/^You are not allowed to decide this approval/);

    const notices = () =>
      (t?.replies(root.ts) ?? []).map((message) => message.text).filter((text) => /^(⏰|⏫)/.test(text));
    await t.world.waitFor(() => notices().some((text) => text.startsWith("⏫")));
    await t.world.idle();
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect(notices()).toEqual([
      `⏰ Reminder: alice's call of shell_cmd, id ${approval?.shortId}, still waits for a decision. <@${olga}>`,
      `⏫ Escalated: alice's call of shell_cmd, id ${approval?.shortId}, had no decision after 5 seconds; they may decide it now: <@${eve}>`,
    ]);
    expect(blocksText(card.blocks)).toContain(`Escalated (no decision in time): ${eve} may decide it too`);
    expect(blocksText(card.blocks)).toContain('"type":"actions"');

    await t.press(eve, card, /Approve once/);
    expect(blocksText(card.blocks)).toContain("Approved once by Eve");
    expect(t.replies(root.ts).at(-1)?.text).toMatch(/^tool said: exit code: 0 .*hello/);
    expect(notices()).toHaveLength(2);
  });
});
