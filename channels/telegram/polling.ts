import { type Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import { isDatabaseUnreachable } from "../../src/errors/database-unreachable.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock } from "../../src/world/channel-adapter.js";

export interface UpdatePollerSetup {
  api: Api;
  clock: ChannelClock;
  logger: Logger;
  timeoutSeconds: number;
  maxDeliveryAttempts: number;
  allowedUpdates: readonly ("message" | "callback_query")[];
  /** Shortest time between the starts of two `getUpdates` calls that came back empty (default 1000). */
  minPollGapMs?: number;
  /** Hands one update to the world; resolves once the world has it (stored or refused). */
  handle(update: Update): Promise<void>;
}

/** Longest wait between two failed attempts (polling or delivery). */
const maxBackoffMs = 30_000;

/** Default shortest time between two empty polls (a server that answers a long poll at once). */
const defaultMinPollGapMs = 1000;

/**
 * Long polling with offsets confirmed only for handled updates. grammY's `bot.start()` confirms
 * an update when its handling begins, so an update in hand at shutdown would be lost; here the
 * offset moves past an update only after the world has it, and `stop()` waits for the updates in
 * hand, then confirms. A crash before that means a second delivery, which the world's ingress
 * drops as a duplicate (same chat and message id). A poll's updates are handed in chat by chat,
 * side by side, each chat's in order ({@link UpdatePoller.deliverBatch}).
 *
 * Connected (the channel's part of `/readyz`) from `start()`, which runs once `getMe` has
 * succeeded: a long poll that waits for updates is polling, not a failure. A failed poll makes
 * it not connected; the next attempt asks without waiting (`timeout: 0`), so that a server back
 * again shows as connected at once, not after a whole long poll. A server that answers a long
 * poll at once with nothing gets its next call no sooner than `minPollGapMs` after the last
 * one began; a poll that brought updates is followed by the next one at once.
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
    this.connected = true;
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
    const minGapMs = this.setup.minPollGapMs ?? defaultMinPollGapMs;
    let failures = 0;
    while (this.running) {
      let updates: Update[];
      // After a failure, ask without waiting: an answer shows at once that polling works again.
      const timeout = failures > 0 ? 0 : timeoutSeconds;
      const began = performance.now();
      try {
        updates = await api.getUpdates(
          {
            ...(this.offset === undefined ? {} : { offset: this.offset }),
            timeout,
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
      const next = await this.deliverBatch(updates);
      if (next !== undefined) this.offset = next;
      if (updates.length === 0 && timeout > 0) {
        // The server did not wait for updates: keep a gap, not a thousand polls a second. The
        // time the call took is the process's monotonic time; the wait goes through the clock.
        const gapMs = minGapMs - (performance.now() - began);
        if (gapMs > 0 && !(await this.pause(Math.ceil(gapMs)))) break;
      }
    }
  }

  /**
   * A poll's updates, each chat's in order and the chats side by side: one slow chat (or a
   * database whose commits wait for the disk) no longer holds up every other chat's messages
   * behind it. The offset that follows is the first update not done with (one in a chat whose
   * lane stopped), or past the last: an update after it that some other chat's lane did handle
   * comes again after a restart, and the world's ingress drops it as a duplicate.
   */
  private async deliverBatch(updates: readonly Update[]): Promise<number | undefined> {
    const lanes = new Map<string, Update[]>();
    for (const update of updates) {
      const lane = laneOf(update);
      const queued = lanes.get(lane);
      if (queued) queued.push(update);
      else lanes.set(lane, [update]);
    }
    const undone = await Promise.all(
      [...lanes.values()].map(async (lane) => {
        for (const update of lane) {
          // Left unconfirmed: delivered again after a restart.
          if (!this.running || !(await this.deliver(update))) return update.update_id;
        }
        return undefined;
      }),
    );
    const first = Math.min(...undone.filter((id) => id !== undefined));
    if (Number.isFinite(first)) return first;
    const last = updates.at(-1);
    return last === undefined ? undefined : last.update_id + 1;
  }

  /**
   * True when the update is done with (handled, or skipped after repeated failures). A failure
   * because the database is away (restarting, cut, locked) never counts toward skipping: the
   * update stays unconfirmed and is tried again, backing off, until the world has it
   * (docs/reliability.md).
   */
  private async deliver(update: Update): Promise<boolean> {
    const { logger, maxDeliveryAttempts } = this.setup;
    let counted = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.setup.handle(update);
        return true;
      } catch (error) {
        if (isDatabaseUnreachable(error)) {
          logger.warn(
            { err: error, updateId: update.update_id, attempt },
            "telegram update not handled: the database is away; kept unconfirmed and tried again",
          );
          if (!(await this.pause(backoffMs(Math.min(attempt, 3))))) return false;
          continue;
        }
        counted += 1;
        if (counted >= maxDeliveryAttempts) {
          logger.error(
            { err: error, updateId: update.update_id, attempt },
            "telegram update skipped after repeated failures",
          );
          return true;
        }
        logger.warn({ err: error, updateId: update.update_id, attempt }, "telegram update not handled; retrying");
        if (!(await this.pause(backoffMs(counted)))) return false;
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

/**
 * The chat an update belongs to (its order is kept within it); one lane for anything else. Read
 * before the update is checked: a malformed one may lack what its type promises.
 */
function laneOf(update: Update): string {
  const loose = update as { message?: { chat?: { id?: number } }; callback_query?: Update["callback_query"] };
  const chat = loose.message?.chat?.id ?? loose.callback_query?.message?.chat?.id;
  if (chat !== undefined) return `chat:${chat}`;
  const from = loose.callback_query?.from?.id;
  return from === undefined ? "other" : `user:${from}`;
}
