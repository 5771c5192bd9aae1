import type { QueueJob } from "../../world/work-queue.js";
import type { DatabaseClient } from "./database-client.js";
import { isUniqueViolation } from "./prisma-errors.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { concatStatements, type RawSql, type SqlStatement, sql } from "./raw-sql.js";

export type JobState = "pending" | "running" | "done" | "failed";

/** What the queue tells about one stored job (for checks, tests and operators). */
export interface JobStatus {
  key: string;
  queue: string;
  state: JobState;
  attempts: number;
  runAt: Date;
  lastError?: string;
}

/** A job this worker now holds. */
export interface ClaimedRow {
  seq: number;
  key: string;
  queue: string;
  payload: unknown;
  attempts: number;
  runAt: Date;
}

/**
 * The queues with a due job and no running job nor a job waiting for its retry, the one whose
 * due job is oldest first. Each subquery looks up its queue's rows by the queue's index
 * ("Job_queue_state_runAt_idx", migration 0022), whatever else is pending.
 */
export function dueQueuesStatement(now: Date, limit: number): SqlStatement {
  return sql`
      SELECT j."queue" AS queue FROM "Job" AS j
      WHERE j."state" = 'pending' AND j."runAt" <= ${now}
        AND NOT EXISTS (SELECT 1 FROM "Job" AS busy WHERE busy."queue" = j."queue" AND busy."state" = 'running')
        AND NOT EXISTS (SELECT 1 FROM "Job" AS waiting WHERE waiting."queue" = j."queue" AND waiting."state" = 'pending'
          AND waiting."attempts" > 0 AND waiting."runAt" > ${now})
      GROUP BY j."queue" ORDER BY MIN(j."seq") LIMIT ${limit}`;
}

/**
 * The claim of `queue`'s next due job (see {@link JobTable.claimNextOf}): its three lookups read
 * that queue's rows only, by "Job_queue_state_runAt_idx" (migration 0022).
 */
export function claimStatement(queue: string, token: string, now: Date): SqlStatement {
  return sql`
          UPDATE "Job" SET "state" = 'running', "lockedBy" = ${token}, "lockedAt" = ${now}, "attempts" = "attempts" + 1
          WHERE "seq" = (SELECT next."seq" FROM "Job" AS next
              WHERE next."queue" = ${queue} AND next."state" = 'pending' AND next."runAt" <= ${now}
              ORDER BY next."priority", next."seq" LIMIT 1)
            AND "state" = 'pending'
            AND NOT EXISTS (SELECT 1 FROM "Job" AS busy WHERE busy."queue" = ${queue} AND busy."state" = 'running')
            AND NOT EXISTS (SELECT 1 FROM "Job" AS waiting WHERE waiting."queue" = ${queue} AND waiting."state" = 'pending'
              AND waiting."attempts" > 0 AND waiting."runAt" > ${now})
          RETURNING "seq", "key", "queue", "payload", "attempts", "runAt"`;
}

/**
 * The Job table's statements. A row is `pending` until a worker claims it (`running`, with
 * `lockedBy` = that worker's claim token), then `done` or `failed`, or `pending` again for a
 * retry. Every change after the claim is conditional on the token, so a worker whose job was
 * taken back (a lease that expired) can no longer change it.
 *
 * A job that threw and waits for its retry (`pending`, run before, not yet due) holds its
 * queue: nothing else of it starts until it has run again, so a failing step keeps its chat's
 * order (docs/architecture.md, "Per-chat order"). A job taken back from a dead process is
 * pending and run before too, but due at once.
 */
export class JobTable {
  private readonly raw: RawSql;

  constructor(db: DatabaseClient) {
    this.raw = rawSqlOf(db);
  }

  /** False when a job with this key exists (whatever its state). */
  async insert(job: QueueJob, now: Date): Promise<boolean> {
    const payload = JSON.stringify(job.payload ?? null);
    const runAt = job.runAt ?? now;
    // Raw SQL on the hot paths: a fraction of the model API's overhead per statement.
    const inserted = await this.raw.execute(sql`
      INSERT INTO "Job" ("key", "queue", "payload", "state", "runAt", "attempts", "priority", "createdAt")
      VALUES (${job.key}, ${job.queue}, ${payload}, 'pending', ${runAt}, 0, ${job.priority ?? 0}, ${now})
      ON CONFLICT ("key") DO NOTHING`);
    return inserted === 1;
  }

  /**
   * The queues with a due job and no running job nor a job waiting for its retry, the one
   * whose due job is oldest first.
   */
  async dueQueues(now: Date, limit: number): Promise<string[]> {
    const rows = await this.raw.rows<{ queue: string }>(dueQueuesStatement(now, limit));
    return rows.map((row) => row.queue);
  }

  /**
   * Take the next due pending job of `queue` (the lowest priority, then the oldest) if nothing
   * of it runs and none of it waits for its retry (a step that threw keeps its chat's order): one conditional statement, for a scan's queue or right after finishing that
   * queue's job. Two workers racing for jobs of one queue cannot both win: the partial unique
   * index (one running job per queue, migration 0002) refuses the second, which counts as a
   * lost race.
   */
  async claimNextOf(queue: string, token: string, now: Date): Promise<ClaimedRow | undefined> {
    try {
      return toClaimedRow(await this.raw.rows<RawClaimedRow>(claimStatement(queue, token, now)));
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  async complete(seq: number, token: string, now: Date): Promise<boolean> {
    const changed = await this.raw.execute(sql`
      UPDATE "Job" SET "state" = 'done', "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${now}
      WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}`);
    return changed === 1;
  }

  async retry(seq: number, token: string, runAt: Date, lastError: string): Promise<boolean> {
    const changed = await this.raw.execute(sql`
      UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL, "runAt" = ${runAt}, "lastError" = ${lastError}
      WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}`);
    return changed === 1;
  }

  async fail(seq: number, token: string, now: Date, lastError: string): Promise<boolean> {
    const changed = await this.raw.execute(sql`
      UPDATE "Job" SET "state" = 'failed', "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${now}, "lastError" = ${lastError}
      WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}`);
    return changed === 1;
  }

  /** Keep a long job's lease fresh. */
  async heartbeat(seq: number, token: string, now: Date): Promise<void> {
    await this.raw.execute(sql`
      UPDATE "Job" SET "lockedAt" = ${now} WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}`);
  }

  /**
   * Take back running jobs whose worker is gone: all of them, or (`lockedBefore`) those whose
   * lease expired. A job that already used its attempts fails instead of running again, so a
   * step that kills the process cannot do so forever. Like the statements below, around
   * Prisma's client: a start and an idle queue run them, and load none of it.
   */
  async recover(options: {
    now: Date;
    maxAttempts: number;
    lockedBefore?: Date;
  }): Promise<{ requeued: number; failed: number }> {
    const lease =
      options.lockedBefore === undefined
        ? sql``
        : sql` AND ("lockedAt" IS NULL OR "lockedAt" < ${options.lockedBefore})`;
    const interrupted = "interrupted: the process running it stopped";
    const failed = await this.raw.execute(
      concatStatements([
        sql`UPDATE "Job" SET "state" = 'failed', "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${options.now},
          "lastError" = ${interrupted}
        WHERE "state" = 'running' AND "attempts" >= ${options.maxAttempts}`,
        lease,
      ]),
    );
    const requeued = await this.raw.execute(
      concatStatements([
        sql`UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL, "lastError" = ${interrupted}
        WHERE "state" = 'running'`,
        lease,
      ]),
    );
    return { requeued, failed };
  }

  /** The earliest `runAt` of a pending job not yet due. */
  async nextRunAt(now: Date): Promise<Date | undefined> {
    const rows = await this.raw.rows<{ runAt: Date | string }>(sql`
      SELECT "runAt" FROM "Job" WHERE "state" = 'pending' AND "runAt" > ${now} ORDER BY "runAt" LIMIT 1`);
    const runAt = rows[0]?.runAt;
    return runAt === undefined ? undefined : asDate(runAt);
  }

  /** Pending jobs due now, not counting those held behind a job of their queue waiting for its retry. */
  async countDue(now: Date): Promise<number> {
    const rows = await this.raw.rows<{ due: number | bigint }>(sql`
      SELECT COUNT(*) AS due FROM "Job" AS j WHERE j."state" = 'pending' AND j."runAt" <= ${now}
        AND NOT EXISTS (SELECT 1 FROM "Job" AS waiting WHERE waiting."queue" = j."queue" AND waiting."state" = 'pending'
          AND waiting."attempts" > 0 AND waiting."runAt" > ${now})`);
    return Number(rows[0]?.due ?? 0);
  }

  /** Forget finished jobs (and so their keys) that ended before `before`. */
  deleteFinished(before: Date): Promise<number> {
    return this.raw.execute(sql`
      DELETE FROM "Job" WHERE "state" IN ('done', 'failed') AND "finishedAt" < ${before}`);
  }

  async status(key: string): Promise<JobStatus | undefined> {
    const rows = await this.raw.rows<{
      key: string;
      queue: string;
      state: string;
      attempts: number | bigint;
      runAt: Date | string;
      lastError: string | null;
    }>(sql`SELECT "key", "queue", "state", "attempts", "runAt", "lastError" FROM "Job" WHERE "key" = ${key}`);
    const row = rows[0];
    if (!row) return undefined;
    return {
      key: row.key,
      queue: row.queue,
      state: row.state as JobState,
      attempts: Number(row.attempts),
      runAt: asDate(row.runAt),
      ...(row.lastError === null ? {} : { lastError: row.lastError }),
    };
  }
}

/** A claimed `Job` row as a statement returns it (both databases). */
export interface RawClaimedRow {
  seq: number | bigint;
  key: string;
  queue: string;
  payload: string;
  attempts: number | bigint;
  runAt: Date | string;
}

function toClaimedRow(rows: RawClaimedRow[]): ClaimedRow | undefined {
  const row = rows[0];
  return row ? claimedRowOf(row) : undefined;
}

/** A claimed row as its record. */
export function claimedRowOf(row: RawClaimedRow): ClaimedRow {
  return {
    seq: Number(row.seq),
    key: row.key,
    queue: row.queue,
    payload: JSON.parse(row.payload) as unknown,
    attempts: Number(row.attempts),
    runAt: asDate(row.runAt),
  };
}

function asDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}
