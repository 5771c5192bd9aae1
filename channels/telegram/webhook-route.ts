import type { IncomingMessage, ServerResponse } from "node:http";
import { type Bot, webhookCallback } from "grammy";
import type { Logger } from "../../src/log/logger.js";
import type { WebhookRoute } from "../../src/world/channel-adapter.js";
import { reply } from "../kit/http-text.js";
import { checkWebhookSecret } from "./verify.js";

/** Where Telegram's webhook arrives on the service's port. */
export const telegramWebhookPath = "/telegram/webhook";

export interface WebhookRouteSetup {
  bot: Bot;
  secret: string;
  logger: Logger;
  /** False until the adapter has started (the bot knows who it is and where to deliver). */
  isReady(): boolean;
}

/**
 * `/telegram/webhook`: the secret token is checked here first (a refusal is logged), then
 * grammY's own callback (which checks it again) runs the update through the bot. The answer
 * is 200 only once the world has the update; otherwise Telegram delivers it again.
 */
export function createWebhookRoute(setup: WebhookRouteSetup): WebhookRoute {
  const { bot, secret, logger } = setup;
  const callback = webhookCallback(bot, "http", { secretToken: secret, timeoutMilliseconds: 25_000 });
  return {
    path: telegramWebhookPath,
    refuseEarly(request) {
      const check = checkWebhookSecret(request.headers, secret);
      return check.ok ? undefined : { status: 401, reason: `${check.reason} secret token` };
    },
    async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
      if (request.method !== "POST") {
        reply(response, 405, "method not allowed");
        return;
      }
      const check = checkWebhookSecret(request.headers, secret);
      if (!check.ok) {
        logger.warn(
          { reason: check.reason, remoteAddress: request.socket.remoteAddress },
          `telegram webhook refused: ${check.reason} secret token`,
        );
        request.resume();
        reply(response, 401, "unauthorized");
        return;
      }
      if (!setup.isReady()) {
        request.resume();
        reply(response, 503, "not ready");
        return;
      }
      try {
        await callback(request, response);
      } catch (error) {
        if (error instanceof SyntaxError) {
          logger.warn({ err: error }, "telegram webhook refused: body is not JSON");
          reply(response, 400, "bad request");
          return;
        }
        logger.error({ err: error }, "telegram webhook update failed; Telegram will deliver it again");
        reply(response, 500, "update not handled");
      }
    },
  };
}
