/**
 * When changes under a pace key last happened: streams that share a budget (every stream in
 * one Telegram chat) share a key, so that together they change no more than once an interval.
 */
export class PaceTable {
  private readonly last = new Map<string, number>();

  /** Milliseconds until the next change under `key` is allowed (0: now). */
  waitMs(key: string, intervalMs: number, now: number): number {
    const last = this.last.get(key);
    return last === undefined ? 0 : Math.max(0, last + intervalMs - now);
  }

  /** A change under `key` happens at `now`. */
  mark(key: string, now: number): void {
    this.last.set(key, now);
    if (this.last.size > 10_000) {
      for (const [each, at] of this.last) if (now - at > 60_000) this.last.delete(each);
    }
  }
}
