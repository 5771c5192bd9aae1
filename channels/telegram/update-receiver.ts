import type { Bot } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock, SingletonLease, SingletonLock, WebhookRoute } from "../../src/world/channel-adapter.js";
import { toPlatformError } from "./api.js";
import type { TelegramAdapterOptions } from "./options.js";
import { UpdatePoller } from "./polling.js";
import { webhookSecretFor } from "./verify.js";
import { createWebhookRoute, telegramWebhookPath } from "./webhook-route.js";

const allowedUpdates = ["message", "callback_query"] as const;

export interface UpdateReceiverSetup {
  /** The main bot: only its updates are read. */
  bot: Bot;
  options: TelegramAdapterOptions;
  clock: ChannelClock;
  logger: Logger;
  /** The adapter has been started and the bot knows itself (the webhook answers 503 until then). */
  isReady(): boolean;
}

/**
 * How the Telegram adapter receives the main bot's updates: long polling by default (only while
 * this process holds the bot's polling lock, when there is one), a webhook on the service's port
 * when `webhookUrl` is set. Each update is handed to grammY (`bot.handleUpdate`).
 */
export class UpdateReceiver {
  private readonly webhookSecret: string;
  private poller: UpdatePoller | undefined;
  private lockStop: AbortController | undefined;
  private holding: Promise<void> | undefined;
  /** Another process holds the polling lock: this one is ready and waits to take over. */
  private waitingForLock = false;
  private webhookConnected = false;
  private route: WebhookRoute | undefined;

  constructor(private readonly setup: UpdateReceiverSetup) {
    this.webhookSecret = webhookSecretFor(setup.options.token, setup.options.webhookSecret);
  }

  private get webhook(): boolean {
    const url = this.setup.options.webhookUrl;
    return url !== undefined && url !== "";
  }

  /**
   * Long polling needs the webhook cleared: asked at once (beside getMe, not after it). Undefined
   * with a webhook. Its failure is seen by {@link receive}, not as an unhandled rejection.
   */
  clearForPolling(): Promise<void> | undefined {
    if (this.webhook) return undefined;
    const cleared = this.clearWebhook();
    cleared.catch(() => undefined);
    return cleared;
  }

  /** Webhook, or long polling (where the polling lock is held, when there is one). */
  async receive(me: UserFromGetMe, cleared: Promise<void> | undefined): Promise<void> {
    if (cleared === undefined) {
      await this.setWebhook(this.setup.options.webhookUrl ?? "");
      return;
    }
    await cleared;
    const lock = this.setup.options.pollingLock;
    if (lock) {
      this.lockStop = new AbortController();
      this.holding = this.pollWhileHolding(lock, `telegram:${me.id}`, me.username, this.lockStop.signal);
      return;
    }
    this.startPoller(me.username);
  }

  async stop(): Promise<void> {
    this.lockStop?.abort();
    await this.holding;
    await this.poller?.stop();
    this.poller = undefined;
    this.webhookConnected = false;
  }

  isConnected(): boolean {
    return this.webhookConnected || this.waitingForLock || (this.poller?.isConnected() ?? false);
  }

  webhookRoutes(): WebhookRoute[] {
    if (!this.webhook) return [];
    this.route ??= createWebhookRoute({
      bot: this.setup.bot,
      secret: this.webhookSecret,
      logger: this.setup.logger,
      isReady: () => this.setup.isReady(),
    });
    return [this.route];
  }

  private async clearWebhook(): Promise<void> {
    try {
      await this.setup.bot.api.deleteWebhook({ drop_pending_updates: false });
    } catch (error) {
      throw toPlatformError(error, "deleteWebhook");
    }
  }

  private startPoller(username: string): void {
    const { bot, clock, logger, options } = this.setup;
    this.poller = new UpdatePoller({
      api: bot.api,
      clock,
      logger,
      timeoutSeconds: options.pollingTimeoutSeconds ?? 30,
      maxDeliveryAttempts: options.maxDeliveryAttempts ?? 5,
      allowedUpdates,
      handle: (update) => bot.handleUpdate(update),
    });
    this.poller.start();
    logger.info({ bot: username }, "telegram long polling started");
  }

  /** Polls only while this process holds the bot's lock; waits (and is ready) while another does. */
  private async pollWhileHolding(lock: SingletonLock, name: string, username: string, stop: AbortSignal) {
    while (!stop.aborted) {
      this.waitingForLock = true;
      let lease: SingletonLease;
      try {
        lease = await lock.acquire(name, stop);
      } catch {
        return; // stopped while waiting
      } finally {
        this.waitingForLock = false;
      }
      this.startPoller(username);
      const done = AbortSignal.any([lease.lost, stop]);
      if (!done.aborted) await new Promise((resolve) => done.addEventListener("abort", resolve, { once: true }));
      if (lease.lost.aborted && !stop.aborted)
        this.setup.logger.warn({ bot: username }, "telegram polling lock lost: polling paused");
      await this.poller?.stop();
      this.poller = undefined;
      await lease.release();
    }
  }

  private async setWebhook(webhookUrl: string): Promise<void> {
    const url = new URL(webhookUrl);
    if (url.pathname === "/" || url.pathname === "") url.pathname = telegramWebhookPath;
    try {
      await this.setup.bot.api.setWebhook(url.toString(), {
        secret_token: this.webhookSecret,
        allowed_updates: [...allowedUpdates],
        drop_pending_updates: false,
      });
    } catch (error) {
      throw toPlatformError(error, "setWebhook");
    }
    this.webhookConnected = true;
    this.setup.logger.info({ url: url.toString() }, "telegram webhook set");
  }
}
