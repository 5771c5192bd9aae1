import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import { auditApprovals } from "../../src/cli/audit-approvals.js";
import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { FakeSlack, type SlackStoredMessage } from "../fakes/slack-api.js";
import { FakeTelegramApi, type StoredMessage } from "../fakes/telegram-api.js";
import { createHarness, type Harness } from "../world/harness.js";
import { ana, capturingLogger, groupId, InstantClock, mainToken } from "./helpers.js";
import { boss, groupKey } from "./world-telegram.js";

// A Telegram world's cards also posted into a Slack approvals channel and decided there by that
// platform's approvers (docs/approvals.md, "Where approval cards go").

const approvalsChannel = "C0APPROVALS";
const olga = "U3OLGA";
const eve = "U2EVE";

interface TwoPlatforms {
  telegram: FakeTelegramApi;
  slack: FakeSlack;
  world: Harness;
  settle(): Promise<void>;
  close(): Promise<void>;
}

async function telegramWorldWithSlackApprovals(
  alice: ScriptedProvider,
  extra: { remind?: string } = {},
): Promise<TwoPlatforms> {
  const telegram = await FakeTelegramApi.start([
    { token: mainToken, username: "roundtable_bot", firstName: "Roundtable", canReadAllGroupMessages: true },
  ]);
  telegram.addChat({ id: groupId, type: "supergroup", title: "Customers" });
  const slack = await FakeSlack.start({
    botToken: "xoxb-test-token",
    appToken: "xapp-test-token",
    signingSecret: "test-signing-secret",
    teamId: "T0FAKE",
    users: [
      { id: olga, name: "olga", displayName: "Olga" },
      { id: eve, name: "eve", displayName: "Eve" },
    ],
  });
  slack.transport = { kind: "socket" };
  const { logger } = capturingLogger();
  const telegramAdapter = new TelegramAdapter({
    token: mainToken,
    apiRoot: telegram.apiRoot,
    logger,
    agentNames: ["alice"],
    pollingTimeoutSeconds: 1,
    clock: new InstantClock(),
  });
  const slackAdapter = new SlackAdapter({
    botToken: "xoxb-test-token",
    signingSecret: "test-signing-secret",
    appToken: "xapp-test-token",
    apiUrl: slack.apiUrl,
    agents: [{ name: "alice" }],
    logger,
    clock: new InstantClock(),
  });
  const world = await createHarness({
    agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
    world: {
      approvers: { telegram: [String(boss.id)], slack: [olga] },
      approvals: { channel: { platform: "slack", id: approvalsChannel }, ...extra } as never,
      ...(extra.remind === undefined ? {} : { approvalTimeout: "10m" }),
    },
    channels: [telegramAdapter, slackAdapter],
    channelsConfig: { telegram: { chats: { "*": "main" } }, slack: { chats: { [approvalsChannel]: "main" } } },
  });
  const settle = async () => {
    for (let round = 0; round < 3; round += 1) {
      await slack.quiet();
      await slackAdapter.idle();
      await world.idle();
    }
  };
  return {
    telegram,
    slack,
    world,
    settle,
    async close() {
      try {
        await world.close();
      } finally {
        await telegram.close();
        await slack.close();
      }
    },
  };
}

let t: TwoPlatforms | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

async function press(t: TwoPlatforms, user: string, card: SlackStoredMessage, label: RegExp): Promise<void> {
  const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
    | { elements: { action_id: string; value: string; text: { text: string } }[] }
    | undefined;
  const button = actions?.elements.find((element) => label.test(element.text.text));
  if (!button) throw new Error(`no button ${label} on the card`);
  const delivery = await t.slack.press({
    user,
    channel: approvalsChannel,
    messageTs: card.ts,
    actionId: button.action_id,
    value: button.value,
  });
  expect(delivery.status).toBe(200);
  await t.settle();
}

function telegramCard(t: TwoPlatforms): StoredMessage | undefined {
  return t.telegram.messagesIn(groupId).find((message) => message.from.is_bot && message.reply_markup !== undefined);
}

describe("a Telegram world's card decided from a Slack approvals channel", () => {
  it("the card shows in the Telegram group and in the Slack channel; a Slack user not listed is refused; a listed one approves, both cards close and the call runs once", async () => {
    const alice = echoOnce();
    t = await telegramWorldWithSlackApprovals(alice);
    const { update } = t.telegram.userMessage(mainToken, {
      chatId: groupId,
      from: ana,
      text: "@alice run echo",
      entities: [{ type: "mention", offset: 0, length: 6 }],
    });
    const updateId = update.update_id as number;
    await t.world.waitFor(() => (t as TwoPlatforms).slack.botPosts(approvalsChannel).length > 0);
    await t.world.waitFor(() => (t as TwoPlatforms).telegram.confirmedOffset(mainToken) > updateId);
    await t.settle();

    const groupCard = telegramCard(t);
    expect(groupCard?.text).toContain("alice wants to run shell_cmd");
    const [slackCard] = t.slack.botPosts(approvalsChannel);
    expect(slackCard?.text).toContain("shell_cmd");

    await press(t, eve, slackCard as SlackStoredMessage, /Approve once/);
    expect(t.slack.ephemerals.at(-1)?.text).toBe(
      "You are not allowed to decide this approval: only this world's approvers may.",
    );
    const [pending] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(pending?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);

    await press(t, olga, slackCard as SlackStoredMessage, /Approve once/);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.settle();
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    expect(approval).toMatchObject({ state: "approved", decidedById: olga });
    const where = "Approved once by Olga in the approvals channel on Slack";
    expect(t.slack.messages.find(approvalsChannel, slackCard?.ts ?? "")?.text).toContain(where);
    expect(t.telegram.message(groupId, groupCard?.message_id ?? 0)?.text).toContain(where);
    const answers = t.telegram
      .messagesIn(groupId)
      .filter((message) => message.from.is_bot && /tool said: .*hello/.test(message.text));
    expect(answers).toHaveLength(1);
    // `roundtable approvals --json` keeps where the card was and which copy decided.
    const [audited] = await auditApprovals(t.world.store, new Date(0));
    expect(audited?.copies).toHaveLength(2);
    expect(audited?.copies).toEqual(
      expect.arrayContaining([
        { chat: groupKey, kind: "chat", state: "open", decidedHere: false },
        { chat: `slack:T0FAKE:${approvalsChannel}:`, kind: "channel", state: "open", decidedHere: true },
      ]),
    );
  });

  it("remind: the Telegram group's reminder names the Telegram approver, the Slack channel's names the Slack one; each once", async () => {
    t = await telegramWorldWithSlackApprovals(echoOnce(), { remind: "1s" });
    t.telegram.userMessage(mainToken, {
      chatId: groupId,
      from: ana,
      text: "@alice run echo",
      entities: [{ type: "mention", offset: 0, length: 6 }],
    });
    const slackReminders = () =>
      (t as TwoPlatforms).slack.botPosts(approvalsChannel).filter((post) => post.text.startsWith("⏰ Reminder"));
    const groupReminders = () =>
      (t as TwoPlatforms).telegram
        .messagesIn(groupId)
        .filter((message) => message.from.is_bot && message.text.startsWith("⏰ Reminder"));
    await t.world.waitFor(() => slackReminders().length > 0 && groupReminders().length > 0);
    await t.settle();
    const [approval] = await t.world.store.listApprovals({ chatKey: groupKey });
    const what = `⏰ Reminder: alice's call of shell_cmd, id ${approval?.shortId}, still waits for a decision.`;
    expect(groupReminders().map((message) => message.text)).toEqual([`${what} ${boss.id}`]);
    expect(slackReminders().map((post) => post.text)).toEqual([`${what} <@${olga}>`]);
  });
});
