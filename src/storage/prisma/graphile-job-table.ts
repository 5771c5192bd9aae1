import type { QueueJob } from "../../world/work-queue.js";
import type { DatabaseClient } from "./database-client.js";
import { type ClaimedRow, claimedRowOf, type RawClaimedRow } from "./job-table.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { type RawSql, sql } from "./raw-sql.js";

/** The graphile-worker task every stored step runs as; its payload is `{ key }` of our `Job` row. */
export const graphileTask = "roundtable_step";

/** The graphile-worker job running a step: its id, its named queue's id, and the pool that locked it. */
export interface RunningJob {
  jobId: string;
  queueId: number | null;
  workerId: string;
}

/** The chat's next job, locked by {@link GraphileJobTable.finish} for the worker that ran the last one. */
export interface HandedJob {
  /** Our row's key (graphile-worker's payload); empty when the payload has none (the task drops it). */
  key: string;
  running: RunningJob;
  /** Our row, claimed for it in the same statement (as {@link GraphileJobTable.claim} would), with its token. */
  claimed?: { row: ClaimedRow; token: string };
}

/**
 * The statements of the PostgreSQL queue on graphile-worker. Our `Job` row stays the record
 * (key, state, attempts, retention, `jobStatus`); graphile-worker's job (task
 * {@link graphileTask}, queue name = chat key, job key = step key) is what gets it run. Each
 * statement that changes both does so in one statement or transaction (data-modifying CTEs
 * calling graphile-worker's `add_job`), so the two never disagree after a crash. A job's
 * priority is handed over as graphile-worker's own (it runs a queue's due jobs by priority,
 * then `run_at`).
 *
 * Finishing a job writes graphile-worker's private tables (`_private_jobs`,
 * `_private_job_queues`) exactly as its own `completeJobs` does; that one statement is the
 * reason the version is pinned (`tests/storage/queue-graphile.postgres.test.ts` breaks on a
 * change). Everything else goes through its public functions and views.
 *
 * Times: our `runAt` follows the queue's clock (tests inject one); graphile-worker's `run_at`
 * follows the database's, so a job is handed over as "due in N ms" from the database's now.
 */
export class GraphileJobTable {
  /** Every statement a step runs goes this way (on `pg` directly: `PostgresRawSql`). */
  private readonly raw: RawSql;

  constructor(private readonly db: DatabaseClient) {
    this.raw = rawSqlOf(db);
  }

  /** Our row and graphile-worker's job together; false (and nothing added) when the key exists. */
  async insert(job: QueueJob, now: Date): Promise<boolean> {
    const payload = JSON.stringify(job.payload ?? null);
    const runAt = job.runAt ?? now;
    const delayMs = Math.max(0, runAt.getTime() - now.getTime());
    const rows = await this.raw.rows<{ id: bigint | number }>(sql`
      WITH inserted AS (
        INSERT INTO "Job" ("key", "queue", "payload", "state", "runAt", "attempts", "priority", "createdAt")
        VALUES (${job.key}, ${job.queue}, ${payload}, 'pending', ${runAt}, 0, ${job.priority ?? 0}, ${now})
        ON CONFLICT ("key") DO NOTHING
        RETURNING "key", "queue", "priority")
      SELECT (graphile_worker.add_job(${graphileTask}, json_build_object('key', inserted."key"),
        queue_name => inserted."queue", run_at => now() + ${delayMs}::float8 * interval '1 millisecond',
        job_key => inserted."key", priority => inserted."priority")).id AS id
      FROM inserted`);
    return rows.length === 1;
  }

  /**
   * {@link insert} for a chat whose graphile-worker queue this process holds (a step of the
   * chat is running here): graphile-worker's job is written without `add_job`, so without its
   * NOTIFY, which would wake a worker in every process to look for a job that none can take
   * while the queue is locked. The running step's {@link finish} hands the queue on to it.
   */
  async insertHeld(job: QueueJob, now: Date, queueId: number): Promise<boolean> {
    const payload = JSON.stringify(job.payload ?? null);
    const runAt = job.runAt ?? now;
    const delayMs = Math.max(0, runAt.getTime() - now.getTime());
    const rows = await this.raw.rows<{ added: number }>(sql`
      WITH inserted AS (
        INSERT INTO "Job" ("key", "queue", "payload", "state", "runAt", "attempts", "priority", "createdAt")
        VALUES (${job.key}, ${job.queue}, ${payload}, 'pending', ${runAt}, 0, ${job.priority ?? 0}, ${now})
        ON CONFLICT ("key") DO NOTHING
        RETURNING "key", "priority"),
      handed AS (
        INSERT INTO graphile_worker._private_jobs (job_queue_id, task_id, payload, run_at, key, priority)
        SELECT ${queueId}::int, tasks.id, json_build_object('key', inserted."key"),
          now() + ${delayMs}::float8 * interval '1 millisecond', inserted."key", inserted."priority"::smallint
        FROM inserted JOIN graphile_worker._private_tasks AS tasks ON tasks.identifier = ${graphileTask}
        ON CONFLICT (key) DO NOTHING
        RETURNING id)
      SELECT (SELECT count(*) FROM inserted)::int AS added, (SELECT count(*) FROM handed)::int AS handed`);
    return rows[0]?.added === 1;
  }

  /**
   * Take our row for the graphile-worker job now running it. graphile-worker runs one job per
   * key and queue at a time, so a row still `running` here was left by a run that did not
   * finish (a killed process whose jobs were unlocked): it is taken over, unless it used all
   * its attempts (then {@link failExhausted} ends it).
   */
  async claim(key: string, token: string, now: Date, maxAttempts: number): Promise<ClaimedRow | undefined> {
    const rows = await this.raw.rows<RawClaimedRow>(sql`
      UPDATE "Job" SET "state" = 'running', "lockedBy" = ${token}, "lockedAt" = ${now}, "attempts" = "attempts" + 1
      WHERE "key" = ${key} AND ("state" = 'pending' OR ("state" = 'running' AND "attempts" < ${maxAttempts}))
        AND NOT EXISTS (SELECT 1 FROM "Job" AS waiting WHERE waiting."queue" = "Job"."queue" AND waiting."key" <> ${key}
          AND waiting."state" = 'pending'
          -- Ahead of it: waiting for its retry, or due and first by priority, then insertion
          -- (tried or not: one whose graphile-worker job failed before its claim was written).
          AND ((waiting."attempts" > 0 AND waiting."runAt" > ${now}) OR (waiting."runAt" <= ${now}
            AND (waiting."priority" < "Job"."priority"
              OR (waiting."priority" = "Job"."priority" AND waiting."seq" < "Job"."seq")))))
      RETURNING "seq", "key", "queue", "payload", "attempts", "runAt"`);
    const row = rows[0];
    return row ? claimedRowOf(row) : undefined;
  }

  /**
   * A job fetched while a job of its chat that ran before waits for its retry, or is due again
   * and comes first by our order (priority, then insertion: graphile-worker's own order, by
   * `run_at`, would put a retry's new job behind later ones) — {@link claim} refused it: its
   * graphile-worker job is finished and added again due just after the other one's, and our
   * row's `runAt` moved to the other one's, so the chat's order holds. True when it was
   * deferred. Should the other one have no graphile-worker job (the sweep gives it one), 1 s.
   */
  async deferBehindRetry(key: string, now: Date, running: RunningJob): Promise<boolean> {
    return this.db.$transaction(async (transaction) => {
      const rows = await transaction.$queryRaw<{ waiting: string }[]>`
        WITH waiting AS (
          SELECT waiting."key", waiting."runAt" FROM "Job" AS job
          JOIN "Job" AS waiting ON waiting."queue" = job."queue" AND waiting."key" <> job."key"
          WHERE job."key" = ${key} AND job."state" = 'pending'
            AND waiting."state" = 'pending'
            AND ((waiting."attempts" > 0 AND waiting."runAt" > ${now}) OR (waiting."runAt" <= ${now}
              AND (waiting."priority" < job."priority"
                OR (waiting."priority" = job."priority" AND waiting."seq" < job."seq"))))
          ORDER BY waiting."runAt" DESC LIMIT 1),
        moved AS (
          UPDATE "Job" SET "runAt" = GREATEST("runAt", (SELECT "runAt" FROM waiting))
          WHERE "key" = ${key} AND EXISTS (SELECT 1 FROM waiting)
          RETURNING "key"),
        finished AS (
          DELETE FROM graphile_worker._private_jobs
          WHERE id = ${running.jobId}::bigint AND locked_by = ${running.workerId} AND EXISTS (SELECT 1 FROM waiting)
          RETURNING id),
        unlocked AS (
          UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
          WHERE id = ${running.queueId}::int AND locked_by = ${running.workerId} AND EXISTS (SELECT 1 FROM waiting)
          RETURNING id)
        SELECT "key" AS waiting FROM waiting`;
      const waiting = rows[0]?.waiting;
      if (waiting === undefined) return false;
      // Due 1 ms after the waiting job's own graphile-worker job (a queue runs by priority, then run_at).
      await transaction.$queryRaw`
        SELECT (graphile_worker.add_job(${graphileTask}, json_build_object('key', job."key"), queue_name => job."queue",
          run_at => COALESCE((SELECT graphile.run_at FROM graphile_worker.jobs AS graphile WHERE graphile.key = ${waiting}::text)
            + interval '1 millisecond', now() + interval '1 second'),
          job_key => job."key", priority => job."priority")).id AS id
        FROM "Job" AS job WHERE job."key" = ${key}::text`;
      return true;
    });
  }

  /** A row left running that used all its attempts fails instead of running again. */
  async failExhausted(key: string, now: Date, maxAttempts: number): Promise<boolean> {
    const changed = await this.raw.execute(sql`
      UPDATE "Job" SET "state" = 'failed', "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${now},
        "lastError" = 'interrupted: the process running it stopped'
      WHERE "key" = ${key} AND "state" = 'running' AND "attempts" >= ${maxAttempts}`);
    return changed === 1;
  }

  /**
   * A run's last word: our row `done` (or `failed`, with its error, after its last attempt),
   * and graphile-worker's job finished in the same statement (deleted). With `handOver`, the
   * chat's next due job is locked for this worker in the same statement and its queue stays
   * locked (the caller runs that job at once: no look for work, no wake-up); otherwise, or
   * with none due, the queue is unlocked so the chat's next step can start at once anywhere.
   * graphile-worker's own completion, which it does not wait for before looking for the next
   * job, then finds nothing left to do. `changed` is false when the row is no longer this run's.
   * With `claimNext`, the handed job's row is claimed in the same statement as {@link claim}
   * claims it (`next.claimed`; absent when that claim found nothing, and the caller claims as
   * usual), so a chat's next step costs no statement of its own before it runs.
   */
  async finish(
    seq: number,
    token: string,
    now: Date,
    running: RunningJob,
    options: { lastError?: string; handOver?: boolean; claimNext?: { token: string; maxAttempts: number } } = {},
  ): Promise<{ changed: boolean; next?: HandedJob }> {
    const { lastError, handOver = false, claimNext } = options;
    const state = lastError === undefined ? "done" : "failed";
    const rows = await this.raw.rows<
      { changed: number; nextId: string | null; nextKey: string | null } & {
        [column in keyof RawClaimedRow as `claimed_${column}`]: RawClaimedRow[column] | null;
      }
    >(sql`
      WITH settled AS (
        UPDATE "Job" SET "state" = ${state}, "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${now},
          "lastError" = COALESCE(${lastError ?? null}::text, "lastError")
        WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}
        RETURNING "seq"),
      finished AS (
        DELETE FROM graphile_worker._private_jobs WHERE id = ${running.jobId}::bigint AND locked_by = ${running.workerId}
        RETURNING id),
      next AS (
        SELECT jobs.id FROM graphile_worker._private_jobs AS jobs
        JOIN graphile_worker._private_job_queues AS queues
          ON queues.id = jobs.job_queue_id AND queues.locked_by = ${running.workerId}
        JOIN graphile_worker._private_tasks AS tasks ON tasks.id = jobs.task_id AND tasks.identifier = ${graphileTask}
        WHERE ${handOver}::boolean AND jobs.job_queue_id = ${running.queueId}::int AND jobs.is_available
          AND jobs.run_at <= now()
        ORDER BY jobs.priority, jobs.run_at, jobs.id
        LIMIT 1
        FOR UPDATE OF jobs SKIP LOCKED),
      taken AS (
        UPDATE graphile_worker._private_jobs AS jobs
        SET attempts = jobs.attempts + 1, locked_by = ${running.workerId}, locked_at = now()
        FROM next WHERE jobs.id = next.id
        RETURNING jobs.id, jobs.payload),
      unlocked AS (
        UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
        WHERE id = ${running.queueId}::int AND locked_by = ${running.workerId} AND NOT EXISTS (SELECT 1 FROM next)
        RETURNING id),
      claimed AS (
        UPDATE "Job" SET "state" = 'running', "lockedBy" = ${claimNext?.token ?? null}::text, "lockedAt" = ${now},
          "attempts" = "attempts" + 1
        WHERE ${claimNext !== undefined}::boolean AND "key" = (SELECT payload->>'key' FROM taken)
          -- Only after our row left running (one running row a queue, "Job_queue_running_key"):
          -- reading settled runs it first (an unread one would run after the main query), and a
          -- row another process took over (settled nothing) leaves the next row to its own claim.
          AND (SELECT count(*) FROM settled) = 1
          AND ("state" = 'pending' OR ("state" = 'running' AND "attempts" < ${claimNext?.maxAttempts ?? 0}::int))
          -- Not past a row of the chat ahead of it (as {@link claim}): the caller's claim defers it.
          AND NOT EXISTS (SELECT 1 FROM "Job" AS waiting WHERE waiting."queue" = "Job"."queue"
            AND waiting."key" <> "Job"."key" AND waiting."state" = 'pending'
            AND ((waiting."attempts" > 0 AND waiting."runAt" > ${now}) OR (waiting."runAt" <= ${now}
              AND (waiting."priority" < "Job"."priority"
                OR (waiting."priority" = "Job"."priority" AND waiting."seq" < "Job"."seq")))))
        RETURNING "seq", "key", "queue", "payload", "attempts", "runAt")
      SELECT (SELECT count(*) FROM settled)::int AS changed, (SELECT id::text FROM taken) AS "nextId",
        (SELECT payload->>'key' FROM taken) AS "nextKey", claimed."seq" AS "claimed_seq",
        claimed."key" AS "claimed_key", claimed."queue" AS "claimed_queue", claimed."payload" AS "claimed_payload",
        claimed."attempts" AS "claimed_attempts", claimed."runAt" AS "claimed_runAt"
      FROM (SELECT 1) AS one LEFT JOIN claimed ON TRUE`);
    const row = rows[0];
    const changed = row?.changed === 1;
    if (!row?.nextId) return { changed };
    const next: HandedJob = { key: row.nextKey ?? "", running: { ...running, jobId: row.nextId } };
    if (claimNext && row.claimed_seq !== null && row.claimed_key !== null && row.claimed_queue !== null) {
      next.claimed = {
        token: claimNext.token,
        row: claimedRowOf({
          seq: row.claimed_seq,
          key: row.claimed_key,
          queue: row.claimed_queue,
          payload: row.claimed_payload ?? "null",
          attempts: row.claimed_attempts ?? 1,
          runAt: row.claimed_runAt ?? now,
        }),
      };
    }
    return { changed, next };
  }

  /**
   * A run that threw goes back to `pending` with a later `runAt`; its graphile-worker job is
   * finished and a new one for the same key is added, due after `delayMs`: one transaction.
   * False when the row is no longer this run's.
   */
  async retry(
    seq: number,
    token: string,
    retry: { runAt: Date; delayMs: number; lastError: string },
    running: RunningJob,
  ): Promise<boolean> {
    return this.db.$transaction(async (transaction) => {
      const rows = await transaction.$queryRaw<{ key: string; queue: string; priority: number }[]>`
        WITH retried AS (
          UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL, "runAt" = ${retry.runAt}, "lastError" = ${retry.lastError}
          WHERE "seq" = ${seq} AND "state" = 'running' AND "lockedBy" = ${token}
          RETURNING "key", "queue", "priority"),
        finished AS (
          DELETE FROM graphile_worker._private_jobs WHERE id = ${running.jobId}::bigint AND locked_by = ${running.workerId}
          RETURNING id),
        unlocked AS (
          UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
          WHERE id = ${running.queueId}::int AND locked_by = ${running.workerId}
          RETURNING id)
        SELECT "key", "queue", "priority" FROM retried`;
      const row = rows[0];
      if (!row) return false;
      await transaction.$queryRaw`
        SELECT (graphile_worker.add_job(${graphileTask}, json_build_object('key', ${row.key}::text),
          queue_name => ${row.queue}::text, run_at => now() + ${Math.max(0, retry.delayMs)}::float8 * interval '1 millisecond',
          job_key => ${row.key}::text, priority => ${row.priority}::int)).id AS id`;
      return true;
    });
  }

  /** graphile-worker's job finished with nothing to do (its row was already done or taken). */
  async finishGraphileJob(running: RunningJob): Promise<void> {
    await this.raw.rows(sql`
      WITH finished AS (
        DELETE FROM graphile_worker._private_jobs WHERE id = ${running.jobId}::bigint AND locked_by = ${running.workerId}
        RETURNING id),
      unlocked AS (
        UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
        WHERE id = ${running.queueId}::int AND locked_by = ${running.workerId}
        RETURNING id)
      SELECT (SELECT count(*) FROM finished)::int AS finished`);
  }

  /**
   * A job fetched while the queue stops is given back unstarted: its graphile-worker job is
   * finished and a new one for the same key added (so graphile-worker's own completion of the
   * fetched one deletes nothing that is still needed), due now for whichever process looks next.
   * `claimedBy`: our row was claimed with this token by the finish that handed it over; it goes
   * back to `pending`, the attempt not counted.
   */
  async handBack(key: string, running: RunningJob, claimedBy?: string): Promise<void> {
    await this.raw.batch([
      sql`
        WITH unclaimed AS (
          UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL, "attempts" = "attempts" - 1
          WHERE "key" = ${key} AND "state" = 'running' AND "lockedBy" = ${claimedBy ?? null}::text
          RETURNING "seq"),
        finished AS (
          DELETE FROM graphile_worker._private_jobs WHERE id = ${running.jobId}::bigint AND locked_by = ${running.workerId}
          RETURNING id),
        unlocked AS (
          UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
          WHERE id = ${running.queueId}::int AND locked_by = ${running.workerId}
          RETURNING id)
        SELECT (SELECT count(*) FROM finished)::int AS finished`,
      sql`
        SELECT (graphile_worker.add_job(${graphileTask}, json_build_object('key', job."key"),
          queue_name => job."queue", job_key => job."key", priority => job."priority")).id AS id
        FROM "Job" AS job WHERE job."key" = ${key} AND job."state" IN ('pending', 'running')`,
    ]);
  }

  /**
   * Make graphile-worker's jobs of rows due by our clock due by the database's too (after a
   * clock jump in tests; a no-op when the clocks agree). Resolves with how many moved.
   */
  async rescheduleDue(now: Date): Promise<number> {
    const rows = await this.raw.rows<{ id: bigint | number }>(sql`
      SELECT id FROM graphile_worker.reschedule_jobs(
        ARRAY(SELECT graphile.id FROM graphile_worker.jobs AS graphile
          JOIN "Job" AS job ON job."key" = graphile.key
          WHERE job."state" = 'pending' AND job."runAt" <= ${now} AND graphile.run_at > now()
            AND graphile.locked_at IS NULL),
        run_at => now())`);
    return rows.length;
  }

  /**
   * Pending rows with no graphile-worker job (rows written by the embedded queue before this
   * database moved to graphile-worker) get one. Resolves with how many were added.
   */
  async addMissing(now: Date): Promise<number> {
    const rows = await this.raw.rows<{ id: bigint | number }>(sql`
      SELECT (graphile_worker.add_job(${graphileTask}, json_build_object('key', job."key"),
        queue_name => job."queue",
        run_at => now() + GREATEST(0, EXTRACT(EPOCH FROM (job."runAt" - ${now}::timestamp))) * interval '1 second',
        job_key => job."key", priority => job."priority")).id AS id
      FROM "Job" AS job
      WHERE job."state" = 'pending'
        AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs AS graphile WHERE graphile.key = job."key")
      ORDER BY job."seq"`);
    return rows.length;
  }

  /** The workers (graphile-worker pools) holding rows whose lease ran out before `lockedBefore`. */
  async expiredHolders(lockedBefore: Date): Promise<string[]> {
    const rows = await this.raw.rows<{ worker: string }>(sql`
      SELECT DISTINCT split_part("lockedBy", ':', 1) AS worker FROM "Job"
      WHERE "state" = 'running' AND ("lockedAt" IS NULL OR "lockedAt" < ${lockedBefore})`);
    return rows.map((row) => row.worker).filter((worker) => worker !== "");
  }

  /**
   * Jobs locked by this process's own pools (`workers`) for a while that no step of it runs
   * (`activeJobIds`): left when a finish was written but its answer lost as the database went
   * away (the chat's next job handed over and never run), or a pool stopped before its task
   * failed. Their rows (claimed by a token of ours that no step holds) go back to `pending`,
   * the jobs and their chats' queues are unlocked, so the chats go on. Resolves with how many.
   */
  async releaseOrphans(workers: string[], activeJobIds: string[], activeTokens: string[]): Promise<number> {
    if (workers.length === 0) return 0;
    const rows = await this.raw.rows<{ released: number }>(sql`
      WITH orphans AS (
        SELECT jobs.id, jobs.job_queue_id, jobs.key FROM graphile_worker._private_jobs AS jobs
        WHERE jobs.locked_by = ANY (${workers}::text[]) AND jobs.locked_at < now() - interval '5 seconds'
          AND NOT (jobs.id::text = ANY (${activeJobIds}::text[]))
        FOR UPDATE SKIP LOCKED),
      requeued AS (
        UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL
        WHERE "state" = 'running' AND "key" IN (SELECT key FROM orphans)
          AND split_part("lockedBy", ':', 1) = ANY (${workers}::text[]) AND NOT ("lockedBy" = ANY (${activeTokens}::text[]))
        RETURNING "seq"),
      unlocked AS (
        UPDATE graphile_worker._private_jobs SET locked_by = NULL, locked_at = NULL
        WHERE id IN (SELECT id FROM orphans)
        RETURNING id),
      queues AS (
        UPDATE graphile_worker._private_job_queues SET locked_by = NULL, locked_at = NULL
        WHERE id IN (SELECT job_queue_id FROM orphans) AND locked_by = ANY (${workers}::text[])
        RETURNING id)
      SELECT (SELECT count(*) FROM unlocked)::int AS released`);
    return rows[0]?.released ?? 0;
  }

  /** graphile-worker's `force_unlock_workers`: the jobs and queues these workers locked run again. */
  async forceUnlock(workers: string[]): Promise<void> {
    if (workers.length === 0) return;
    await this.raw.execute(sql`SELECT graphile_worker.force_unlock_workers(${workers}::text[])`);
  }
}
