import type { JobHelpers, WorkerPool } from "graphile-worker";
import type pg from "pg";
import { StorageError } from "../../errors/roundtable-error.js";
import type { Logger } from "../../log/logger.js";
import { graphileTask } from "./graphile-job-table.js";
import type { GraphileLiveness } from "./graphile-liveness.js";
import { graphileLogFactory } from "./graphile-logger.js";

/** The longest delay a Node.js timer takes. */
export const longestTimerMs = 2 ** 31 - 1;

/** How long graphile-worker gathers completions (no-ops for it: see `start`) into one statement. */
const completionBatchMs = 50;

/** Where the work queue stands; the pool runs and restarts only while it starts or runs. */
export type QueuePhase = "stopped" | "starting" | "started" | "stopping";

export interface GraphilePoolSetup {
  logger: Logger;
  liveness: GraphileLiveness;
  concurrency: number;
  /** How often each idle worker looks for jobs no wake-up announced (default {@link defaultPollInterval}). */
  pollIntervalMs: number | undefined;
  /** The database pool graphile-worker runs on (the queue's, set while it starts). */
  database(): pg.Pool | undefined;
  phase(): QueuePhase;
  /** The graphile-worker task: one step, by our row's key, for the pool `workerId`. */
  task(payload: unknown, helpers: JobHelpers, workerId: string): Promise<void>;
  /** A pool ended by itself, or its replacement runs: whoever waits on the queue looks again. */
  changed(): void;
  /** A replacement pool runs: due jobs are looked for. */
  restarted(): void;
}

/**
 * The graphile-worker pool of a work queue, its liveness lock held. When it stops by itself (its
 * completion batch failed while the database went away, say) a new one takes its place after a
 * backoff; the steps the old one was running finish on their own and keep its liveness lock, so
 * no other process takes them over meanwhile.
 */
export class GraphilePool {
  private pool: WorkerPool | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly setup: GraphilePoolSetup) {}

  /** True while a pool runs. */
  get running(): boolean {
    return this.pool !== undefined;
  }

  async start(): Promise<void> {
    const { logger, concurrency } = this.setup;
    const graphileWorker = await import("graphile-worker");
    const pgPool = this.setup.database();
    if (!pgPool) throw new StorageError("internal", "the work queue has no database pool");
    const owner: { id?: string } = {};
    const pool = graphileWorker.runTaskList(
      {
        concurrency,
        pollInterval: this.setup.pollIntervalMs ?? defaultPollInterval(concurrency),
        noHandleSignals: true,
        logger: new graphileWorker.Logger(graphileLogFactory(logger)),
        // A step's own finish already deleted its graphile-worker job and unlocked its chat
        // (`GraphileJobTable.finish`): graphile-worker's completion finds nothing to do, so
        // it is batched (one statement for the completions of a while, not one per job).
        // A step that throws (its claim could not be read while the database went away) is
        // failed through a batch too: graphile-worker does not wait on an unbatched failure,
        // whose rejection then goes unhandled and ends the process; a batch that cannot be
        // written stops the pool instead, and a new one is started (`ended`).
        // A pool that stops never gives a running step's job back (another worker would run
        // it a second time): it waits for the step, which always ends.
        preset: {
          worker: {
            completeJobBatchDelay: completionBatchMs,
            failJobBatchDelay: completionBatchMs,
            gracefulShutdownAbortTimeout: longestTimerMs,
          },
        },
      },
      {
        [graphileTask]: (payload: unknown, helpers: JobHelpers) =>
          this.setup.task(payload, helpers, owner.id ?? pool.id),
      },
      pgPool,
    );
    owner.id = pool.id;
    this.catchShutdowns(pool);
    this.pool = pool;
    pool.promise.then(
      () => this.ended(pool),
      (error: unknown) => this.ended(pool, error),
    );
    try {
      await this.setup.liveness.connected();
      await this.setup.liveness.hold(pool.id);
    } catch (error) {
      // Without its lock the pool's jobs could be judged dead: it stops, and a new one comes.
      if (this.pool === pool) this.pool = undefined;
      void Promise.resolve(pool.gracefulShutdown("its liveness lock could not be taken")).catch(() => undefined);
      throw error;
    }
  }

  /** Wake up to `count` idle workers (never more than the concurrency). */
  nudge(count: number): void {
    const phase = this.setup.phase();
    if (count <= 0 || (phase !== "started" && phase !== "starting") || !this.pool) return;
    try {
      this.pool.nudge(Math.min(count, this.setup.concurrency));
    } catch (error) {
      // A pool that is stopping by itself refuses (its replacement polls and is nudged as it starts).
      this.setup.logger.debug({ err: error }, "work queue: a stopping graphile-worker pool was not nudged");
    }
  }

  /** No restart from now on (the queue stops). */
  cancelRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** Stops the running pool: it waits for the steps it runs. */
  async stopPool(): Promise<void> {
    const pool = this.pool;
    if (!pool) return;
    try {
      await pool.gracefulShutdown("the work queue is stopping");
    } catch (error) {
      this.setup.logger.warn({ err: error }, "work queue: graphile-worker did not stop cleanly");
    }
  }

  /** The queue has stopped: the pool is gone. */
  forget(): void {
    this.pool = undefined;
  }

  /**
   * graphile-worker shuts a pool down by itself after a fatal error (its completion or failure
   * batch could not be written) without waiting on the promise, which then rejects unhandled
   * when the database is still away, and that ends the process: each call's promise is caught
   * (the pool's end is seen through `pool.promise`).
   */
  private catchShutdowns(pool: WorkerPool): void {
    const graceful = pool.gracefulShutdown.bind(pool);
    const forceful = pool.forcefulShutdown.bind(pool);
    const caught = <T>(outcome: T): T => {
      Promise.resolve(outcome).catch((error: unknown) =>
        this.setup.logger.warn({ err: error }, "work queue: graphile-worker did not stop cleanly"),
      );
      return outcome;
    };
    pool.gracefulShutdown = (message?: string) => caught(graceful(message));
    pool.forcefulShutdown = (message: string) => caught(forceful(message));
  }

  /** A pool ended: by our stop (nothing to do), or by itself (a new one is started). */
  private ended(pool: WorkerPool, error?: unknown): void {
    if (this.pool !== pool) return;
    this.pool = undefined;
    const phase = this.setup.phase();
    if (phase !== "started" && phase !== "starting") return;
    this.setup.logger.error({ err: error }, "work queue: graphile-worker stopped; starting it again");
    this.setup.changed();
    this.restart();
  }

  /** Start a new pool, backing off (0.5 s doubling, at most 30 s) while the database cannot be reached. */
  private restart(attempt = 1): void {
    const wait = Math.min(500 * 2 ** (attempt - 1), 30_000);
    const timer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.setup.phase() !== "started" || this.pool) return;
      this.start().then(
        () => {
          this.setup.logger.warn({ worker: this.pool?.id }, "work queue: graphile-worker runs again");
          this.setup.changed();
          this.setup.restarted();
        },
        (error: unknown) => {
          this.setup.logger.warn(
            { err: error, attempt },
            "work queue: graphile-worker could not start again; trying later",
          );
          this.restart(attempt + 1);
        },
      );
    }, wait);
    timer.unref();
    this.restartTimer = timer;
  }
}

/**
 * Each idle graphile-worker worker looks for work on its own timer; the pool as a whole looks
 * about once a second at most, whatever the concurrency (each look is the largest statement the
 * queue sends, and an idle process's main cost: docs/performance.md, "Idle CPU"). Polls are only
 * the fallback: adds wake every process (NOTIFY), a finished step hands its chat on at once, a
 * delayed step of this process has its own timer, and a sweep that takes back a dead process's
 * jobs wakes this process's workers.
 */
function defaultPollInterval(concurrency: number): number {
  return Math.max(2_000, concurrency * 1_000);
}
