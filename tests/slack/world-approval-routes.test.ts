import { afterEach, describe, expect, it } from "vitest";
import { approvalsConfigSchema } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { ana, eve, olga, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

// Cards routed to approvers' Slack DMs (docs/approvals.md, "Where approval cards go").

let t: WorldSlack | undefined;
let before: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  await before?.close();
  t = undefined;
  before = undefined;
});

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

async function pressIn(t: WorldSlack, user: string, channel: string, card: SlackStoredMessage, label: RegExp) {
  const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
    | { elements: { action_id: string; value: string; text: { text: string } }[] }
    | undefined;
  const button = actions?.elements.find((element) => label.test(element.text.text));
  if (!button) throw new Error(`no button ${label} on the card`);
  const delivery = await t.fake.press({
    user,
    channel,
    messageTs: card.ts,
    actionId: button.action_id,
    value: button.value,
  });
  expect(delivery.status).toBe(200);
  await t.settle();
}

function worldLogs(t: WorldSlack, pattern: RegExp): Record<string, unknown>[] {
  return t.world
    .logs()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => pattern.test(String(line.msg)));
}

describe("approval cards routed to Slack DMs", () => {
  it("route dm: the card is posted in the approver's DM (conversations.open), the thread gets one line, a DM that cannot be opened is skipped; the DM press runs the call and names where", async () => {
    const alice = echoOnce();
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { approvers: { slack: [olga, "U9GONE"] }, approvals: approvalsConfigSchema.parse({ route: "dm" }) },
    });
    const asked = await t.say(ana, "<@UBOT> @alice run echo");
    const thread = asked.ts;

    expect(t.cards(thread)).toHaveLength(0);
    expect(t.replies(thread).map((message) => message.text)).toContain(
      "alice waits for approval of shell_cmd (asked privately)",
    );
    expect(t.fake.calls.filter((call) => call.method === "conversations.open")).toHaveLength(2);
    expect(worldLogs(t, /their DM could not be opened/)).toHaveLength(1);
    const [card] = t.fake.botPosts(`D${olga}`).filter((message) => (message.blocks ?? []).length > 0);
    expect(card?.text).toContain("alice wants to run shell_cmd");

    // Eve cannot press in Olga's DM (a forged press with the DM's channel is refused, nothing decided).
    await pressIn(t, eve, `D${olga}`, card as SlackStoredMessage, /Approve once/);
    expect(t.fake.ephemerals.at(-1)?.text).toMatch(/not allowed/);
    const [pending] = await t.world.store.listApprovals({ chatKey: threadKey(thread) });
    expect(pending?.state).toBe("pending");

    await pressIn(t, olga, `D${olga}`, card as SlackStoredMessage, /Approve once/);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.settle();
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(thread) });
    expect(approval).toMatchObject({ state: "approved", decidedById: olga });
    expect(t.fake.messages.find(`D${olga}`, card?.ts ?? "")?.text).toContain("in a direct message");
    expect(t.replies(thread).at(-1)?.text).toMatch(/tool said: .*hello/);
  });
  it("a DM copy survives a restart: the press after it, in the new process, decides the same call once", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const options = {
      mode: "http" as const,
      databaseUrl,
      keepDatabase: true,
      world: { approvers: { slack: [olga] }, approvals: approvalsConfigSchema.parse({ route: "dm" }) },
    };
    const first = echoOnce();
    before = await worldOnSlack({ ...options, agents: [{ name: "alice", provider: first, tools: ["shell_cmd"] }] });
    const asked = await before.say(ana, "<@UBOT> @alice run echo");
    const [card] = before.fake.botPosts(`D${olga}`).filter((message) => (message.blocks ?? []).length > 0);
    expect(card).toBeDefined();
    const fake = before.fake;
    await before.close({ keepFake: true });
    before = undefined;

    const second = echoOnce();
    t = await worldOnSlack({
      ...options,
      reuseFake: fake,
      agents: [{ name: "alice", provider: second, tools: ["shell_cmd"] }],
    });
    await pressIn(t, olga, `D${olga}`, card as SlackStoredMessage, /Approve once/);
    await t.world.waitFor(() => second.requests.length === 1);
    await t.settle();
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(asked.ts) });
    expect(approval).toMatchObject({ state: "approved", decidedById: olga });
    expect(fake.messages.find(`D${olga}`, card?.ts ?? "")?.text).toContain("Approved once by Olga in a direct message");
    expect(t.replies(asked.ts).filter((message) => /tool said: .*hello/.test(message.text))).toHaveLength(1);
    expect(t.fake.botPosts(`D${olga}`).filter((message) => (message.blocks ?? []).length > 0)).toHaveLength(1);
  });
});
