import { type Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import type { Logger } from "../../src/log/logger.js";
import type { TelegramClock } from "./options.js";

export interface UpdatePollerSetup {
  api: Api;
  clock: TelegramClock;
  logger: Logger;
  timeoutSeconds: number;
  maxDeliveryAttempts: number;
  allowedUpdates: readonly ("message" | "callback_query")[];
  /** Hands one update to the world; resolves once the world has it (stored or refused). */
  handle(update: Update): Promise<void>;
}

/** Longest wait between two failed attempts (polling or delivery). */
const maxBackoffMs = 30_000;

/**
 * Long polling with offsets confirmed only for handled updates. grammY's `bot.start()` confirms
 * an update when its handling begins, so an update in hand at shutdown would be lost; here the
 * offset moves past an update only after the world has it, and `stop()` waits for the update in
 * hand, then confirms. A crash before that means a second delivery, which the world's ingress
 * drops as a duplicate (same chat and message id).
 */
export class UpdatePoller {
  private offset: number | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private abort = new AbortController();
  private connected = false;

  constructor(private readonly setup: UpdatePollerSetup) {}

  isConnected(): boolean {
    return this.connected;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort();
    await this.loop;
    this.connected = false;
    if (this.offset === undefined) return;
    try {
      // Tell Telegram which updates are handled, so a restart does not see them again.
      await this.setup.api.getUpdates({ offset: this.offset, limit: 1, timeout: 0 });
    } catch (error) {
      this.setup.logger.warn({ err: error }, "could not confirm the last telegram updates; they come again");
    }
  }

  private async run(): Promise<void> {
    const { api, logger, timeoutSeconds, allowedUpdates } = this.setup;
    let failures = 0;
    while (this.running) {
      let updates: Update[];
      try {
        updates = await api.getUpdates(
          {
            ...(this.offset === undefined ? {} : { offset: this.offset }),
            timeout: timeoutSeconds,
            allowed_updates: [...allowedUpdates],
          },
          // grammY types its signal with the abort-controller polyfill; Node's is the same at runtime.
          this.abort.signal as unknown as Parameters<Api["getUpdates"]>[1],
        );
        this.connected = true;
        failures = 0;
      } catch (error) {
        if (!this.running) break;
        this.connected = false;
        failures += 1;
        if (error instanceof GrammyError && error.error_code === 409) {
          logger.error({ err: error }, "telegram polling conflict: another process polls this bot or a webhook is set");
        } else {
          logger.warn({ err: error, failures }, "telegram polling failed; retrying");
        }
        if (!(await this.pause(backoffMs(failures)))) break;
        continue;
      }
      for (const update of updates) {
        if (!this.running) break; // left unconfirmed: delivered again after a restart
        if (!(await this.deliver(update))) break;
        this.offset = update.update_id + 1;
      }
    }
  }

  /** True when the update is done with (handled, or skipped after repeated failures). */
  private async deliver(update: Update): Promise<boolean> {
    const { logger, maxDeliveryAttempts } = this.setup;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.setup.handle(update);
        return true;
      } catch (error) {
        if (attempt >= maxDeliveryAttempts) {
          logger.error(
            { err: error, updateId: update.update_id, attempt },
            "telegram update skipped after repeated failures",
          );
          return true;
        }
        logger.warn({ err: error, updateId: update.update_id, attempt }, "telegram update not handled; retrying");
        if (!(await this.pause(backoffMs(attempt)))) return false;
      }
    }
  }

  /** Wait, unless stopped meanwhile (then false). */
  private async pause(ms: number): Promise<boolean> {
    try {
      await this.setup.clock.sleep(ms, this.abort.signal);
      return this.running;
    } catch {
      return false;
    }
  }
}

function backoffMs(failures: number): number {
  return Math.min(maxBackoffMs, 500 * 2 ** Math.min(failures, 10));
}
