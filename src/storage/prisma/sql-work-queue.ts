import { randomUUID } from "node:crypto";
import { errorMessage, StorageError } from "../../errors/roundtable-error.js";
import type { Logger } from "../../log/logger.js";
import type { ClaimedJob, JobHandler, QueueJob, WorkQueue } from "../../world/work-queue.js";
import type { DatabaseClient } from "./database-client.js";
import { type ClaimedRow, type JobStatus, JobTable } from "./job-table.js";
import { CleanupSchedule, QueueChanges, queueSettings, type SqlWorkQueueOptions } from "./queue-bookkeeping.js";
import { livenessSweepMs, WorkerLiveness } from "./worker-liveness.js";

export type { JobState, JobStatus } from "./job-table.js";
export type { SqlWorkQueueOptions } from "./queue-bookkeeping.js";

/** The stored queue as `openStore` hands it out: the port plus a wake-up and a look at one job. */
export interface StoredWorkQueue extends WorkQueue {
  /**
   * Look for due work now (adds, finished jobs and the timer do this by themselves; useful
   * after a clock jump). Resolves when that look is over.
   */
  wake(): Promise<void>;
  /** A job's state by key, while its row is kept. */
  jobStatus(key: string): Promise<JobStatus | undefined>;
  /** Whether the queue runs jobs now (started, and on PostgreSQL a graphile-worker pool up): `/readyz`. */
  isRunning(): boolean;
}

const scanRetryMs = 1_000;
const idleRecheckMs = 1_000;
const longestTimerMs = 2 ** 31 - 1;

/**
 * The WorkQueue over the Job table. Jobs of one queue run one at a time, the lowest priority
 * first, then in insertion order (among due jobs); different queues run concurrently up to
 * `concurrency`. Nothing polls:
 * `add` and every finished job wake the scheduler, and one timer waits for the earliest
 * future `runAt`.
 *
 * Dedupe: a key is refused while its row exists. Finished jobs stay as `done` / `failed`
 * rows (keeping their key) for `retentionMs`, then a cleanup deletes them; a key added again
 * after that runs again, which is safe because every step is idempotent by its key.
 */
export class SqlWorkQueue implements StoredWorkQueue {
  private readonly table: JobTable;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly leaseMs: number;
  private readonly retentionMs: number;
  private readonly clock: () => Date;
  private readonly workerId = randomUUID();

  private phase: "stopped" | "starting" | "started" | "stopping" = "stopped";
  private handler: JobHandler | undefined;
  private readonly running = new Map<number, Promise<void>>();
  /** Queues with a job running in this process: a job added to one waits for it, no scan needed. */
  private readonly runningQueues = new Set<string>();
  /** The last scan may have left due work unclaimed (no free slot): a freed slot must scan again. */
  private backlog = false;
  private claimCount = 0;
  private scanning: Promise<void> | undefined;
  private scanRequested = false;
  /** The next scan must look at every queue (not only {@link addedQueues}). */
  private scanAll = false;
  /** Queues a job was added to since the last scan. */
  private readonly addedQueues = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  /** Bumped when the earliest future runAt may have changed (start, a delayed add, a retry, the timer). */
  private timerGeneration = 1;
  private armedGeneration = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly cleanups = new CleanupSchedule();
  private readonly changes = new QueueChanges();
  private readonly liveness: WorkerLiveness | undefined;
  private livenessTimer: NodeJS.Timeout | undefined;

  constructor(
    db: DatabaseClient,
    private readonly provider: "sqlite" | "postgresql",
    options: SqlWorkQueueOptions,
  ) {
    this.table = new JobTable(db);
    this.logger = options.logger.child({ component: "work-queue" });
    ({
      concurrency: this.concurrency,
      maxAttempts: this.maxAttempts,
      retryDelayMs: this.retryDelayMs,
      leaseMs: this.leaseMs,
      retentionMs: this.retentionMs,
      clock: this.clock,
    } = queueSettings(options));
    this.liveness =
      provider === "postgresql" && options.postgresUrl
        ? new WorkerLiveness(db, options.postgresUrl, this.workerId, this.logger)
        : undefined;
  }

  async add(job: QueueJob): Promise<boolean> {
    const now = this.clock();
    const added = await this.table.insert(job, now);
    if (added) {
      const delayed = job.runAt !== undefined && job.runAt.getTime() > now.getTime();
      if (delayed) this.timerGeneration++;
      // Checked after the insert: a running job of this queue hands over to the next one
      // (`launch`) only after leaving `runningQueues`, so it finds this row.
      if (delayed) void this.wake();
      else if (!this.runningQueues.has(job.queue)) void this.wake(job.queue);
    }
    return added;
  }

  async start(handler: JobHandler): Promise<void> {
    if (this.phase !== "stopped") throw new StorageError("internal", "the work queue is already started");
    this.phase = "starting";
    this.handler = handler;
    try {
      const now = this.clock();
      // SQLite has one process per file: whatever is running is left over from a crash.
      const lockedBefore = this.provider === "postgresql" ? new Date(now.getTime() - this.leaseMs) : undefined;
      const recovered = await this.table.recover({
        now,
        maxAttempts: this.maxAttempts,
        ...(lockedBefore === undefined ? {} : { lockedBefore }),
      });
      if (recovered.requeued > 0 || recovered.failed > 0) {
        this.logger.warn(recovered, "took back jobs left running by a stopped process");
      }
      await this.cleanup(now);
      await this.liveness?.start();
      await this.liveness?.sweep();
    } catch (error) {
      if (this.phase === "starting") this.phase = "stopped";
      this.handler = undefined;
      throw error;
    }
    if (this.phase !== "starting") return; // stopped while taking jobs back
    this.phase = "started";
    this.timerGeneration++;
    if (this.liveness) {
      const liveness = this.liveness;
      // Also a slow look for work other processes added (their wake-ups are in-process only).
      this.livenessTimer = setInterval(() => {
        void liveness
          .sweep()
          .catch((error: unknown) => this.logger.warn({ err: error }, "work queue: looking for dead workers failed"))
          .then(() => this.wake());
      }, livenessSweepMs);
      this.livenessTimer.unref();
    }
    void this.wake();
  }

  async stop(): Promise<void> {
    if (this.phase === "stopped" || this.phase === "stopping") return;
    this.phase = "stopping";
    this.clearTimers();
    clearInterval(this.livenessTimer);
    await this.scanning;
    await Promise.allSettled([...this.running.values()]);
    await this.liveness?.stop();
    this.phase = "stopped";
    this.handler = undefined;
    this.changes.notify();
  }

  async whenIdle(): Promise<void> {
    for (;;) {
      const changed = this.changes.next();
      if (this.running.size === 0 && this.scanning === undefined) {
        const due = await this.table.countDue(this.clock());
        if (due === 0 && this.running.size === 0 && this.scanning === undefined) return;
        // Due but not taken: another process holds its queue, or a timer is late. Look again soon.
        await Promise.race([changed, delay(idleRecheckMs)]);
        await this.wake();
        continue;
      }
      await changed;
    }
  }

  /**
   * Look for due work. `added`: the only news is a job added to that queue (nothing of it runs
   * here), so claiming that queue's next job is enough (one statement instead of a scan and a
   * claim); anything else scans every queue.
   */
  wake(added?: string): Promise<void> {
    if (this.phase !== "started") return Promise.resolve();
    this.scanRequested = true;
    if (added === undefined) this.scanAll = true;
    else this.addedQueues.add(added);
    // A running scan loops once more for this request before it ends.
    if (this.scanning) return this.scanning;
    this.scanning = (async () => {
      try {
        while (this.scanRequested && this.phase === "started") {
          this.scanRequested = false;
          const added = this.scanAll || this.addedQueues.size === 0 ? undefined : [...this.addedQueues];
          this.scanAll = false;
          this.addedQueues.clear();
          await this.scan(added);
        }
      } finally {
        this.scanning = undefined;
        this.changes.notify();
      }
    })();
    return this.scanning;
  }

  jobStatus(key: string): Promise<JobStatus | undefined> {
    return this.table.status(key);
  }

  isRunning(): boolean {
    return this.phase === "started";
  }

  /** Claim and launch what is due, then set the timer for the next future job. */
  private async scan(added: string[] | undefined): Promise<void> {
    try {
      const now = this.clock();
      const free = this.concurrency - this.running.size;
      const backlogBefore = this.backlog;
      this.backlog = free <= 0;
      if (free > 0 && added && !backlogBefore && added.length <= free) {
        // Nothing else waits for a slot: the added jobs' queues are all there is to claim.
        await this.claimAdded(added);
      } else if (free > 0) {
        const queues = await this.table.dueQueues(now, free);
        this.backlog = queues.length >= free;
        for (const queue of queues) {
          if (this.phase !== "started" || this.running.size >= this.concurrency) {
            this.backlog = true;
            break;
          }
          const token = this.newToken();
          const job = await this.table.claimNextOf(queue, token, this.clock());
          if (job) this.launch(job, token);
          else this.scanRequested = true; // someone else changed it first: look again
        }
      }
      await this.cleanup(now);
      await this.armTimer(now);
    } catch (error) {
      this.logger.error({ err: error }, "work queue: looking for due jobs failed; trying again shortly");
      if (!this.retryTimer) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          void this.wake();
        }, scanRetryMs);
        this.retryTimer.unref();
      }
    }
  }

  /** Claim the next job of each queue; when one is not there to take, scan every queue. */
  private async claimAdded(queues: string[]): Promise<void> {
    for (const queue of queues) {
      if (this.phase !== "started") return;
      if (this.runningQueues.has(queue)) continue; // its running job hands over to it
      const token = this.newToken();
      const job = await this.table.claimNextOf(queue, token, this.clock());
      if (job) this.launch(job, token);
      else this.scanRequested = this.scanAll = true;
    }
  }

  private newToken(): string {
    return `${this.workerId}:${++this.claimCount}`;
  }

  /**
   * Run a claimed job in its own slot; when it completes, the slot claims the next due job of
   * the same queue directly (one statement instead of a scan and a claim), unless other queues
   * wait for a slot (then the scan picks the oldest due work, whichever queue it is in).
   */
  private launch(row: ClaimedRow, token: string): void {
    const run = (async () => {
      let current: ClaimedRow | undefined = row;
      let currentToken = token;
      let scanAfter = true;
      while (current) {
        this.runningQueues.add(current.queue);
        const completed = await this.run(current, currentToken);
        this.runningQueues.delete(current.queue);
        if (!completed || this.phase !== "started" || this.backlog) break;
        currentToken = this.newToken();
        current = await this.claimNext(current.queue, currentToken);
        // SQLite has no other process to add work, so an empty queue without a backlog needs no scan.
        if (!current && this.provider === "sqlite") scanAfter = false;
      }
      return scanAfter;
    })().then(
      (scanAfter) => this.finished(row.seq, scanAfter),
      () => this.finished(row.seq, true),
    );
    this.running.set(row.seq, run);
  }

  private finished(seq: number, scanAfter: boolean): void {
    this.running.delete(seq);
    if (scanAfter || this.backlog) void this.wake();
    this.changes.notify();
  }

  private async claimNext(queue: string, token: string): Promise<ClaimedRow | undefined> {
    try {
      return await this.table.claimNextOf(queue, token, this.clock());
    } catch (error) {
      this.logger.warn({ err: error, queue }, "work queue: taking a queue's next job failed; a scan will");
      void this.wake();
      return undefined;
    }
  }

  /** Run one job and store its outcome; true when it completed (not retried or failed). */
  private async run(row: ClaimedRow, token: string): Promise<boolean> {
    const handler = this.handler;
    if (!handler) return false;
    const log = this.logger.child({ queue: row.queue, job: row.key, attempt: row.attempts });
    const job: ClaimedJob = {
      queue: row.queue,
      key: row.key,
      payload: row.payload,
      runAt: row.runAt,
      attempts: row.attempts,
    };
    const heartbeat = setInterval(
      () => {
        this.table.heartbeat(row.seq, token, this.clock()).catch((error: unknown) => {
          log.warn({ err: error }, "work queue: renewing a job's lease failed");
        });
      },
      Math.max(1_000, Math.floor(this.leaseMs / 3)),
    );
    heartbeat.unref();
    let thrown: { error: unknown } | undefined;
    try {
      await handler(job);
    } catch (error) {
      thrown = { error };
    } finally {
      clearInterval(heartbeat);
    }
    if (!thrown) return this.settle(log, () => this.table.complete(row.seq, token, this.clock()));
    const message = errorMessage(thrown.error);
    if (row.attempts >= this.maxAttempts) {
      log.error({ err: thrown.error }, "job failed %d times; giving up on it", row.attempts);
      await this.settle(log, () => this.table.fail(row.seq, token, this.clock(), message));
      return false;
    }
    const wait = Math.max(0, this.retryDelayMs(row.attempts));
    log.warn({ err: thrown.error, retryInMs: wait }, "job failed; it will run again");
    const runAt = new Date(this.clock().getTime() + wait);
    await this.settle(log, () => this.table.retry(row.seq, token, runAt, message));
    this.timerGeneration++;
    return false;
  }

  /**
   * Write a job's outcome. While the queue runs, a database that is locked or went away is
   * waited for, backing off up to 2 s: the row is this process's and nobody else takes it from
   * a live process, so giving up would leave its chat stalled with the job `running`. Once the
   * queue is stopping, three tries, then the job is left to recovery. True when it was written.
   */
  private async settle(log: Logger, write: () => Promise<boolean>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await write()) return true;
        log.warn("job was taken back by another worker before it finished; its outcome is dropped");
        return false;
      } catch (error) {
        if (attempt >= 3 && this.phase !== "started") {
          log.error(
            { err: error },
            "could not record a job's outcome; it stays running until recovered at the next start",
          );
          return false;
        }
        if (attempt === 3)
          log.warn({ err: error }, "work queue: cannot record a job's outcome yet; trying until it is");
        await delay(Math.min(100 * 2 ** (attempt - 1), 2_000));
      }
    }
  }

  private async armTimer(now: Date): Promise<void> {
    const generation = this.timerGeneration;
    if (generation === this.armedGeneration) return;
    const next = await this.table.nextRunAt(now);
    this.armedGeneration = generation;
    if (!next) return;
    const at = next.getTime();
    if (this.timer && this.timerAt !== undefined && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        this.timerGeneration++;
        void this.wake();
      },
      Math.min(Math.max(0, at - now.getTime()), longestTimerMs),
    );
    this.timer.unref();
  }

  private async cleanup(now: Date): Promise<void> {
    if (!this.cleanups.take(now)) return;
    const deleted = await this.table.deleteFinished(new Date(now.getTime() - this.retentionMs));
    if (deleted > 0) this.logger.debug({ deleted }, "work queue: deleted old finished jobs");
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.timer = undefined;
    this.timerAt = undefined;
    this.retryTimer = undefined;
  }
}

/** A pause that keeps the process alive (someone is waiting on it). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
