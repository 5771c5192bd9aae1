import type { JobHelpers } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { StorageError } from "../../errors/roundtable-error.js";
import type { Logger } from "../../log/logger.js";
import type { JobHandler, QueueJob } from "../../world/work-queue.js";
import type { StatementCount } from "./count-statements.js";
import type { DatabaseClient } from "./database-client.js";
import { GraphileJobTable, type HandedJob } from "./graphile-job-table.js";
import { GraphilePool, longestTimerMs, type QueuePhase } from "./graphile-pool.js";
import { GraphileLiveness } from "./graphile-liveness.js";
import { type HandOver, runClaimedStep, type StepRunContext } from "./graphile-step-run.js";
import { type JobStatus, JobTable } from "./job-table.js";
import { createPostgresPool } from "./postgres-pool.js";
import { CleanupSchedule, QueueChanges, queueSettings, type SqlWorkQueueOptions } from "./queue-bookkeeping.js";
import type { StoredWorkQueue } from "./sql-work-queue.js";
import { livenessSweepMs } from "./worker-liveness.js";

export interface GraphileWorkQueueOptions extends SqlWorkQueueOptions {
  /** The database (graphile-worker's pool and the liveness locks connect to it). */
  postgresUrl: string;
  /** How often each idle graphile-worker worker looks for jobs no wake-up announced. Default the larger of 2 s and 1 s × concurrency. */
  pollIntervalMs?: number;
  /** Counts graphile-worker's statements with the store's (on a pool of its own). */
  statements?: StatementCount;
  /**
   * The process's shared pool (the store's), which graphile-worker then uses rather than a pool
   * of its own; the queue does not end it. Its clients count their statements themselves.
   */
  pool?: pg.Pool;
}

const taskPayload = z.object({ key: z.string().min(1) });
const idleRecheckMs = 100;
const idleWakeMs = 250;
/** A chat's graphile-worker queue while a step of it runs in this process (the queue is locked by it). */
interface HeldQueue {
  queueId: number;
  /** Adds to the chat sent and not yet answered. */
  addsInFlight: number;
  /** An add was answered since the last finish statement was sent (that finish may not have seen it). */
  addedSince: boolean;
}

/**
 * PostgreSQL's WorkQueue: graphile-worker runs the jobs (named queue = chat key, so one job
 * per chat at a time in order; job key = step key; LISTEN/NOTIFY wake-ups across processes),
 * and our `Job` row stays the record of each step (dedupe by key, state, attempts, retry
 * policy, retention, `jobStatus`). Any number of processes share one database; a process
 * that dies is found by its liveness lock and its jobs run again within seconds
 * ({@link GraphileLiveness}).
 *
 * A graphile-worker job runs task {@link graphileTask}: it claims our row, calls the world's
 * handler, and records the outcome. A step that threw is retried by our own policy
 * (`retryDelayMs`, `maxAttempts`) through a new graphile-worker job due later, so the task
 * itself only fails when the outcome could not be recorded (graphile-worker then runs it again).
 */
export class GraphileWorkQueue implements StoredWorkQueue {
  private readonly rows: JobTable;
  private readonly graphile: GraphileJobTable;
  private readonly logger: Logger;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  /** What a step's run needs (`graphile-step-run.ts`). */
  private readonly steps: StepRunContext;
  private readonly liveness: GraphileLiveness;
  private readonly concurrency: number;
  private readonly retentionMs: number;

  private phase: QueuePhase = "stopped";
  private starting: Promise<void> | undefined;
  private handler: JobHandler | undefined;
  private readonly pool: GraphilePool;
  private pgPool: pg.Pool | undefined;
  /** The graphile-worker jobs this process is running, by job id. */
  private readonly running = new Map<string, Promise<void>>();
  /** The graphile-worker jobs and claim tokens of the steps this process runs now (not orphans). */
  private readonly activeJobIds = new Set<string>();
  private readonly activeTokens = new Set<string>();
  /** The chats whose graphile-worker queue a step of this process holds, by chat key. */
  private readonly held = new Map<string, HeldQueue>();
  private claimCount = 0;
  private readonly changes = new QueueChanges();
  private sweepTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAt: number | undefined;
  private readonly cleanups = new CleanupSchedule();

  constructor(
    db: DatabaseClient,
    private readonly options: GraphileWorkQueueOptions,
  ) {
    this.rows = new JobTable(db);
    this.graphile = new GraphileJobTable(db);
    this.logger = options.logger.child({ component: "work-queue" });
    this.liveness = new GraphileLiveness(db, options.postgresUrl, this.logger);
    ({
      concurrency: this.concurrency,
      maxAttempts: this.maxAttempts,
      retryDelayMs: this.retryDelayMs,
      leaseMs: this.leaseMs,
      retentionMs: this.retentionMs,
      clock: this.clock,
    } = queueSettings(options));
    this.steps = {
      rows: this.rows,
      graphile: this.graphile,
      logger: this.logger,
      clock: this.clock,
      maxAttempts: this.maxAttempts,
      retryDelayMs: this.retryDelayMs,
      leaseMs: this.leaseMs,
      keepTrying: () => this.phase === "started",
    };
    this.pool = new GraphilePool({
      logger: this.logger,
      liveness: this.liveness,
      concurrency: this.concurrency,
      pollIntervalMs: options.pollIntervalMs,
      database: () => this.pgPool,
      phase: () => this.phase,
      task: (payload, helpers, workerId) => this.task(payload, helpers, workerId),
      changed: () => this.changes.notify(),
      restarted: () => void this.wake(),
    });
  }

  async add(job: QueueJob): Promise<boolean> {
    const now = this.clock();
    const held = this.phase === "started" ? this.held.get(job.queue) : undefined;
    const added = held ? await this.addToHeld(held, job, now) : await this.graphile.insert(job, now);
    if (added && job.runAt && job.runAt.getTime() > now.getTime())
      this.armDueTimer(job.runAt.getTime() - now.getTime());
    return added;
  }

  /**
   * A job for a chat whose step runs here (the step's own next step or delivery, most often):
   * no wake-up for every process, since none could take it before that step ends; the step's
   * finish hands the chat on to it. Should the finish have missed it (sent before this add was
   * answered), a wake-up of this process's workers finds it.
   */
  private async addToHeld(held: HeldQueue, job: QueueJob, now: Date): Promise<boolean> {
    held.addsInFlight++;
    try {
      return await this.graphile.insertHeld(job, now, held.queueId);
    } finally {
      held.addsInFlight--;
      held.addedSince = true;
      if (this.held.get(job.queue) !== held) this.pool.nudge(1);
    }
  }

  start(handler: JobHandler): Promise<void> {
    if (this.phase !== "stopped")
      return Promise.reject(new StorageError("internal", "the work queue is already started"));
    this.phase = "starting";
    this.handler = handler;
    this.starting = this.begin().catch(async (error: unknown) => {
      await this.shutDown();
      this.phase = "stopped";
      this.handler = undefined;
      throw error;
    });
    return this.starting;
  }

  async stop(): Promise<void> {
    if (this.phase === "stopped" || this.phase === "stopping") return;
    await this.starting?.catch(() => undefined);
    if (this.phase !== "started") return; // the start failed and cleaned up
    this.phase = "stopping";
    await this.shutDown();
    this.phase = "stopped";
    this.handler = undefined;
    this.changes.notify();
  }

  async whenIdle(): Promise<void> {
    let lastWake = Number.NEGATIVE_INFINITY;
    for (;;) {
      const changed = this.changes.next();
      if (this.running.size === 0) {
        const due = await this.rows.countDue(this.clock());
        if (due === 0 && this.running.size === 0) return;
        // Due but not yet taken: usually a fetch on its way; now and then another process's
        // chat, or a clock jump that only a wake-up hands to graphile-worker.
        if (Date.now() - lastWake >= idleWakeMs) {
          lastWake = Date.now();
          await this.wake();
        }
        await Promise.race([changed, delay(idleRecheckMs)]);
        continue;
      }
      await changed;
    }
  }

  async wake(): Promise<void> {
    if (this.phase !== "started") return;
    try {
      const moved = await this.graphile.rescheduleDue(this.clock());
      if (moved > 0) this.pool.nudge(moved);
    } catch (error) {
      this.logger.warn({ err: error }, "work queue: looking for due jobs failed");
    }
  }

  jobStatus(key: string): Promise<JobStatus | undefined> {
    return this.rows.status(key);
  }

  private async begin(): Promise<void> {
    await this.liveness.connect();
    const now = this.clock();
    await this.cleanup(now);
    const missing = await this.graphile.addMissing(now);
    if (missing > 0) this.logger.info({ jobs: missing }, "work queue: handed pending jobs to graphile-worker");
    this.pgPool =
      this.options.pool ??
      createPostgresPool(this.options.postgresUrl, this.logger, {
        max: Math.min(this.concurrency, 4) + 2,
        statements: this.options.statements,
      });
    await this.pool.start();
    await this.recoverExpiredLeases(now);
    await this.sweep();
    if (this.phase !== "starting") return;
    this.phase = "started";
    this.sweepTimer = setInterval(() => void this.sweep(), livenessSweepMs);
    this.sweepTimer.unref();
  }

  /** True while a graphile-worker pool of this process runs (for `/readyz`). */
  isRunning(): boolean {
    return this.phase === "started" && this.pool.running;
  }

  /** The graphile-worker task: one step, by our row's key, for the pool `workerId`. */
  private readonly task = async (payload: unknown, helpers: JobHelpers, workerId: string): Promise<void> => {
    const parsed = taskPayload.safeParse(payload);
    if (!parsed.success) {
      this.logger.error(
        { graphileJob: helpers.job.id, payload },
        "work queue: a graphile-worker job without a step key; it is dropped",
      );
      return;
    }
    // Counted from here, claim included: whenIdle must not see a claimed row and no running step.
    const step = this.runChain({
      key: parsed.data.key,
      running: { jobId: helpers.job.id, queueId: helpers.job.job_queue_id, workerId },
    });
    this.running.set(helpers.job.id, step);
    this.changes.notify();
    try {
      await step;
    } finally {
      this.running.delete(helpers.job.id);
      this.changes.notify();
    }
  };

  /** A step, then each next step of its chat that its finish handed to this worker. */
  private async runChain(first: HandedJob): Promise<void> {
    let next: HandedJob | undefined = first;
    while (next) next = await this.runStep(next);
  }

  private async runStep(job: HandedJob): Promise<HandedJob | undefined> {
    const token = job.claimed?.token ?? this.newToken(job.running.workerId);
    this.activeJobIds.add(job.running.jobId);
    this.activeTokens.add(token);
    try {
      return await this.runStepWith(job, token);
    } finally {
      this.activeJobIds.delete(job.running.jobId);
      this.activeTokens.delete(token);
    }
  }

  private async runStepWith(job: HandedJob, token: string): Promise<HandedJob | undefined> {
    const { key, running, claimed } = job;
    const handler = this.handler;
    if (!handler) throw new StorageError("internal", "the work queue is not started");
    if (this.phase === "stopping" || this.phase === "stopped") {
      // Fetched (or handed over and claimed) as the queue stopped: left for the next start.
      await this.graphile.handBack(key, running, claimed?.token);
      return undefined;
    }
    // A job handed over by the last finish had its row claimed in that statement (with `token`).
    const row =
      claimed?.row ?? (key === "" ? undefined : await this.graphile.claim(key, token, this.clock(), this.maxAttempts));
    if (!row) {
      // An earlier job of the chat waits for its retry: this one goes back behind it.
      if (key !== "" && (await this.graphile.deferBehindRetry(key, this.clock(), running))) return undefined;
      if (await this.graphile.failExhausted(key, this.clock(), this.maxAttempts))
        this.logger.error({ job: key }, "job was interrupted after its last attempt; it is marked failed");
      else if ((await this.rows.status(key)) === undefined)
        this.logger.warn(
          { job: key },
          "work queue: a graphile-worker job for a step that was never added; it is dropped",
        );
      await this.graphile.finishGraphileJob(running);
      return undefined;
    }
    const held = this.hold(row.queue, running.queueId);
    let outcome: { retryInMs?: number; next?: HandedJob } = {};
    try {
      outcome = await runClaimedStep(
        this.steps,
        { row, token, running },
        handler,
        this.handOverOf(held, running.workerId),
      );
    } finally {
      if (!outcome.next) this.release(row.queue, held);
    }
    if (outcome.retryInMs !== undefined) this.armDueTimer(outcome.retryInMs);
    return outcome.next;
  }

  /** The chat's queue is this process's while its step runs (graphile-worker locked it for this worker). */
  private hold(queue: string, queueId: number | null): HeldQueue | undefined {
    if (queueId === null) return undefined;
    const existing = this.held.get(queue);
    if (existing?.queueId === queueId) return existing;
    const held: HeldQueue = { queueId, addsInFlight: 0, addedSince: false };
    this.held.set(queue, held);
    return held;
  }

  /** The chain ended with the queue unlocked: an add its last finish did not see is looked for. */
  private release(queue: string, held: HeldQueue | undefined): void {
    if (!held) return;
    if (this.held.get(queue) === held) this.held.delete(queue);
    if (held.addedSince) this.pool.nudge(1);
  }

  private newToken(workerId: string): string {
    return `${workerId}:${++this.claimCount}`;
  }

  private handOverOf(held: HeldQueue | undefined, workerId: string): HandOver {
    return {
      allowed: () => held !== undefined && this.phase === "started",
      nextToken: () => this.newToken(workerId),
      finishing: () => {
        if (held) held.addedSince = false;
      },
    };
  }

  /** Rows whose lease ran out (a worker that stopped renewing it): back to pending, their jobs unlocked. */
  private async recoverExpiredLeases(now: Date): Promise<void> {
    const lockedBefore = new Date(now.getTime() - this.leaseMs);
    const holders = await this.graphile.expiredHolders(lockedBefore);
    if (holders.length === 0) return;
    const recovered = await this.rows.recover({ now, maxAttempts: this.maxAttempts, lockedBefore });
    await this.graphile.forceUnlock(holders);
    this.logger.warn({ workers: holders, ...recovered }, "took back jobs whose worker stopped renewing their lease");
    this.pool.nudge(recovered.requeued);
  }

  private async sweep(): Promise<void> {
    try {
      const now = this.clock();
      const released = await this.liveness.sweep(this.maxAttempts, now);
      if (released.workers.length > 0) this.pool.nudge(this.concurrency);
      // A pending row without a job (a worker's late finish deleted it after its lease was taken over).
      const missing = await this.graphile.addMissing(now);
      if (missing > 0)
        this.logger.warn({ jobs: missing }, "work queue: gave pending jobs without a graphile-worker job a new one");
      const orphans = await this.graphile.releaseOrphans(
        this.liveness.heldWorkers(),
        [...this.activeJobIds],
        [...this.activeTokens],
      );
      if (orphans > 0) {
        this.logger.warn({ jobs: orphans }, "work queue: released jobs of this process that no step runs");
        this.pool.nudge(orphans);
      }
      await this.cleanup(now);
    } catch (error) {
      this.liveness.noteOutage();
      this.logger.warn({ err: error }, "work queue: looking for dead workers failed");
    }
  }

  private async cleanup(now: Date): Promise<void> {
    if (!this.cleanups.take(now)) return;
    const deleted = await this.rows.deleteFinished(new Date(now.getTime() - this.retentionMs));
    if (deleted > 0) this.logger.debug({ deleted }, "work queue: deleted old finished jobs");
  }

  /** A delayed job of this process runs on time, not at the next poll. */
  private armDueTimer(inMs: number): void {
    if (this.phase !== "started" && this.phase !== "starting") return;
    const at = Date.now() + inMs;
    if (this.dueTimer && this.dueAt !== undefined && this.dueAt <= at) return;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueAt = at;
    // A few ms late, so the database's clock has surely passed the job's run_at too.
    this.dueTimer = setTimeout(
      () => {
        this.dueTimer = undefined;
        this.dueAt = undefined;
        this.pool.nudge(1);
      },
      Math.min(inMs + 5, longestTimerMs),
    );
    this.dueTimer.unref();
  }

  private async shutDown(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.pool.cancelRestart();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.sweepTimer = undefined;
    this.dueTimer = undefined;
    this.dueAt = undefined;
    await this.pool.stopPool();
    await Promise.allSettled([...this.running.values()]);
    this.pool.forget();
    await this.liveness.stop();
    const pgPool = this.pgPool;
    this.pgPool = undefined;
    if (pgPool !== this.options.pool) await pgPool?.end().catch(() => undefined);
  }
}

/** A pause that keeps the process alive (someone is waiting on it). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
