import type { ChannelClock } from "../../src/world/channel-adapter.js";

/**
 * When each bot last changed something in each chat (Telegram allows about one message a
 * second in a private chat and twenty a minute in a group). The world's stream paces the
 * changes themselves (`streamMode`'s `paceKey`); this lets `typing` wait for room in that budget.
 */
export class EditThrottle {
  private readonly last = new Map<string, number>();

  constructor(private readonly clock: ChannelClock) {}

  /** Milliseconds until the next change under `key` is allowed (0: now). */
  waitMs(key: string, intervalMs: number): number {
    const last = this.last.get(key);
    if (last === undefined) return 0;
    return Math.max(0, last + intervalMs - this.clock.now());
  }

  /** A change under `key` happens now. */
  record(key: string): void {
    const now = this.clock.now();
    this.last.set(key, now);
    if (this.last.size > 10_000) this.prune(now);
  }

  private prune(now: number): void {
    for (const [key, at] of this.last) if (now - at > 60_000) this.last.delete(key);
  }
}
