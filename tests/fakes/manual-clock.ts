import type { ChannelClock } from "../../src/world/channel-adapter.js";

/** A clock that only moves when told to; sleepers wake as it passes their time. */
export class ManualClock implements ChannelClock {
  private time = 1_800_000_000_000;
  private sleepers: { at: number; resolve: () => void }[] = [];
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      const sleeper = { at: this.time + ms, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.sleepers = this.sleepers.filter((entry) => entry !== sleeper);
          reject(new Error("aborted"));
        },
        { once: true },
      );
    });
  }

  /** How many sleeps are waiting for time to pass. */
  sleeping(): number {
    return this.sleepers.length;
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.time);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.time);
    for (const sleeper of due) sleeper.resolve();
  }
}
