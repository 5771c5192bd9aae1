import type { Logger } from "../../log/logger.js";

/** The options both stored queues take (`SqlWorkQueue`, `GraphileWorkQueue`). */
export interface SqlWorkQueueOptions {
  logger: Logger;
  /** Jobs (of different queues) running at once in this process. Default 4. */
  concurrency?: number;
  /** Runs of a job before it is marked failed. Default 5. */
  maxAttempts?: number;
  /** Wait before the next run after `attempt` (1-based) threw. Default 1 s doubling, at most 1 min. */
  retryDelayMs?: (attempt: number) => number;
  /** PostgreSQL: a running job whose lease is older than this belongs to a dead process. Default 5 min. */
  leaseMs?: number;
  /** PostgreSQL: the connection string for the liveness lock (dead workers' jobs taken back at once). */
  postgresUrl?: string;
  /** How long finished (done or failed) jobs keep their key before the cleanup deletes them. Default 7 days. */
  retentionMs?: number;
  clock?: () => Date;
}

/** 1 s after the first failed run, doubling, at most 1 min (both queues). */
const defaultRetryDelay = (attempt: number): number => Math.min(1_000 * 2 ** (attempt - 1), 60_000);

/** The options with their defaults filled in. */
export interface QueueSettings {
  concurrency: number;
  maxAttempts: number;
  retryDelayMs: (attempt: number) => number;
  leaseMs: number;
  retentionMs: number;
  clock: () => Date;
}

export function queueSettings(options: SqlWorkQueueOptions): QueueSettings {
  return {
    concurrency: Math.max(1, options.concurrency ?? 4),
    maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    retryDelayMs: options.retryDelayMs ?? defaultRetryDelay,
    leaseMs: options.leaseMs ?? 5 * 60 * 1_000,
    retentionMs: options.retentionMs ?? 7 * 24 * 60 * 60 * 1_000,
    clock: options.clock ?? (() => new Date()),
  };
}

/** Lets `whenIdle` wait for the queue's next change (a job finished, the queue stopped). */
export class QueueChanges {
  private waiters: (() => void)[] = [];

  /** Resolves at the next {@link notify}. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

const cleanupEveryMs = 60 * 60 * 1_000;

/** When the hourly deletion of finished jobs is due (the first look always is). */
export class CleanupSchedule {
  private last = Number.NEGATIVE_INFINITY;

  /** True (and counted as done) when an hour has passed since the last one. */
  take(now: Date): boolean {
    if (now.getTime() - this.last < cleanupEveryMs) return false;
    this.last = now.getTime();
    return true;
  }
}
