import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import { encodeApprovalCallback } from "../../channels/telegram/callback-data.js";
import { telegramMessageLimit } from "../../channels/telegram/render.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { ana, capturingLogger, groupId, InstantClock, mainToken } from "../telegram/helpers.js";
import { type ChannelFixture, runChannelContract, type ShownMessage } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";

type Update = Record<string, unknown>;

/**
 * Telegram: the real adapter (grammY) on the fake Bot API, receiving through its webhook on a
 * local HTTP server (so deliveries are synchronous and the secret token is checked).
 */
async function startTelegram(sink: ContractSink): Promise<ChannelFixture> {
  const fake = await FakeTelegramApi.start([
    { token: mainToken, username: "roundtable_bot", firstName: "Roundtable", canReadAllGroupMessages: true },
  ]);
  fake.addChat({ id: groupId, type: "supergroup", title: "Release team" });
  let adapter: TelegramAdapter | undefined;
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
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  adapter = new TelegramAdapter({
    token: mainToken,
    apiRoot: fake.apiRoot,
    webhookUrl: `${origin}/telegram/webhook`,
    logger: capturingLogger().logger,
    agentNames: ["alice", "bob"],
    clock: new InstantClock(),
  });
  await adapter.start(sink);
  const started = adapter;

  const deliver = async (update: Update): Promise<void> => {
    const response = await fake.deliverWebhook(mainToken, update);
    if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${response.body}`);
  };
  return {
    adapter: started,
    chat: { platform: "telegram", channel: String(groupId) },
    person: { id: String(ana.id), name: "Ana" },
    async deliverMessage(text) {
      const { message, update } = fake.userMessage(mainToken, { chatId: groupId, from: ana, text });
      await deliver(update);
      return { platformMessageId: String(message.message_id), raw: update };
    },
    async redeliver(delivered) {
      await deliver(delivered.raw as Update);
    },
    async deliverOwnEcho(sent, text) {
      const posted = fake.message(groupId, Number(sent.ids[0]));
      const update = fake.pushUpdate(mainToken, {
        message: {
          message_id: posted?.message_id ?? 1,
          date: Math.floor(Date.now() / 1000),
          chat: { id: groupId, type: "supergroup", title: "Release team" },
          from: fake.botUser(mainToken),
          text,
        },
      });
      await deliver(update);
    },
    async deliverClick(sent, card, choice) {
      const queryId = fake.pressButton(mainToken, {
        chatId: groupId,
        messageId: Number(sent.ids[0]),
        from: ana,
        data: encodeApprovalCallback(card.approvalId, choice),
      });
      const update = fake
        .pendingUpdates(mainToken)
        .find((each) => (each.callback_query as { id?: string } | undefined)?.id === queryId);
      if (!update) throw new Error("the press was not queued");
      await deliver(update);
      const answer = fake.callbackAnswers.get(queryId);
      return answer?.text === undefined ? {} : { privateText: answer.text };
    },
    async deliverBadSignature() {
      const { update } = fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "forged" });
      return (await fake.deliverWebhook(mainToken, update, "not-the-secret")).status;
    },
    async shownMessages(): Promise<ShownMessage[]> {
      return fake.messagesIn(groupId).map((message) => ({
        id: String(message.message_id),
        text: message.text,
        buttons: countButtons(message.reply_markup),
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

function countButtons(markup: unknown): number {
  const rows = (markup as { inline_keyboard?: unknown[][] } | undefined)?.inline_keyboard ?? [];
  return rows.reduce((sum, row) => sum + row.length, 0);
}

runChannelContract({ name: "telegram", maxMessageLength: telegramMessageLimit, start: startTelegram });
