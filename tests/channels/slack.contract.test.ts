import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import { slackMessageLimit } from "../../channels/slack/render.js";
import { FakeSlack, type SlackStoredMessage } from "../fakes/slack-api.js";
import { ana, appToken, botToken, channel, signingSecret, teamId } from "../slack/world-slack.js";
import { capturingLogger, InstantClock } from "../telegram/helpers.js";
import { type ChannelFixture, runChannelContract, type ShownMessage } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";

/**
 * Slack: the real adapter (Bolt) on the fake Slack, receiving signed HTTP events at
 * `/slack/events` on a local server, or over Socket Mode. The chat is a thread (a Slack thread
 * is its own chat).
 */
async function startSlack(sink: ContractSink, mode: "http" | "socket"): Promise<ChannelFixture> {
  const fake = await FakeSlack.start({
    botToken,
    appToken,
    signingSecret,
    teamId,
    users: [{ id: ana, name: "ana", displayName: "Ana" }],
  });
  let adapter: SlackAdapter | undefined;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const route = adapter?.webhookRoutes().find((each) => each.path === path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    void route.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.transport =
    mode === "http"
      ? { kind: "http", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` }
      : { kind: "socket" };
  adapter = new SlackAdapter({
    botToken,
    signingSecret,
    ...(mode === "socket" ? { appToken } : {}),
    apiUrl: fake.apiUrl,
    agents: [{ name: "alice" }, { name: "bob" }],
    logger: capturingLogger().logger,
    clock: new InstantClock(),
  });
  await adapter.start(sink);
  const started = adapter;
  if (mode === "socket") await fake.socket.whenConnected();
  const root = fake.messages.add({ channel, user: ana, text: "Release thread" });

  const accepted = (delivery: { status: number; body: string }): void => {
    if (delivery.status !== 200) throw new Error(`events answered ${delivery.status}: ${delivery.body}`);
  };
  // Over the socket nothing is signed (the app token authenticates the connection).
  const deliverBadSignature = async (): Promise<number> => {
    const body = JSON.stringify({
      type: "event_callback",
      team_id: teamId,
      event_id: "EvForged",
      event: { type: "message", channel, user: ana, text: "forged", ts: "1800009999.000001", thread_ts: root.ts },
    });
    return (await fake.post(body, "application/json", { signingSecret: "not-the-secret" })).status;
  };
  return {
    adapter: started,
    ...(mode === "http" ? { deliverBadSignature } : {}),
    chat: { platform: "slack", workspace: teamId, channel, thread: root.ts },
    person: { id: ana, name: "Ana" },
    async deliverMessage(text) {
      const { message, event, eventId, delivery } = await fake.userMessage({
        channel,
        user: ana,
        text,
        threadTs: root.ts,
      });
      accepted(delivery);
      await started.idle();
      return { platformMessageId: message.ts, raw: { event, eventId } };
    },
    async redeliver(delivered) {
      const { event, eventId } = delivered.raw as { event: Record<string, unknown>; eventId: string };
      accepted(await fake.deliverEvent(event, { eventId, retryNum: 1 }));
      await started.idle();
    },
    async deliverOwnEcho(sent, text) {
      const event = {
        type: "message",
        subtype: "bot_message",
        username: "Alice",
        bot_id: fake.botId,
        channel,
        text,
        ts: sent.ids[0],
        thread_ts: root.ts,
        team: teamId,
        channel_type: "channel",
      };
      accepted(await fake.deliverEvent(event));
      await started.idle();
    },
    async deliverClick(sent, card, choice) {
      const before = fake.ephemerals.length;
      accepted(
        await fake.press({
          user: ana,
          channel,
          messageTs: sent.ids[0] ?? "",
          actionId: `roundtable_approval_${choice}`,
          value: `${card.approvalId}|${choice}`,
        }),
      );
      await started.idle();
      const told = fake.ephemerals.slice(before).filter((each) => each.user === ana);
      const last = told.at(-1);
      return last === undefined ? {} : { privateText: last.text };
    },
    async shownMessages(): Promise<ShownMessage[]> {
      return fake.messagesIn(channel, root.ts).map((message) => ({
        id: message.ts,
        text: message.text,
        buttons: countButtons(message),
      }));
    },
    async close() {
      await started.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await fake.close();
    },
  };
}

function countButtons(message: SlackStoredMessage): number {
  return (message.blocks ?? [])
    .filter((block) => (block as { type?: string }).type === "actions")
    .reduce((sum: number, block) => sum + ((block as { elements?: unknown[] }).elements?.length ?? 0), 0);
}

runChannelContract({
  name: "slack (HTTP events)",
  maxMessageLength: slackMessageLimit,
  start: (sink) => startSlack(sink, "http"),
});
runChannelContract({
  name: "slack (Socket Mode)",
  maxMessageLength: slackMessageLimit,
  start: (sink) => startSlack(sink, "socket"),
});
