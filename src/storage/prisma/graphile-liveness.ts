import pg from "pg";
import { StorageError } from "../../errors/roundtable-error.js";
import type { Logger } from "../../log/logger.js";
import type { DatabaseClient } from "./database-client.js";
import { advisoryKey } from "./postgres-singleton-lock.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { type RawSql, sql } from "./raw-sql.js";

/**
 * A job locked this long ago or less is not judged yet: a pool that has just started may lock
 * a job a moment before it holds its own liveness lock.
 */
const judgeAfterMs = 1_000;

/** What a sweep released. */
export interface ReleasedWork {
  /** graphile-worker pools found dead (their jobs and queues are unlocked). */
  workers: string[];
  /** Our rows of theirs back to `pending`. */
  requeued: number;
  /** Our rows of theirs that had used all their attempts, now `failed`. */
  failed: number;
}

const interrupted = "interrupted: the process running it died";

/**
 * After this process saw the database go away (its liveness connection broke, a sweep failed),
 * it judges no other process for this long: a restart frees every process's lock at once, and
 * each takes its own again at its next sweep once the server is back. Judging before that would
 * run a live process's steps a second time.
 */
const outageGraceMs = 10_000;

/** The liveness connections' `application_name` (operators see them in `pg_stat_activity`). */
const livenessApplicationName = "roundtable-liveness";

/**
 * Dead graphile-worker pools, found at once. graphile-worker leaves a crashed pool's jobs and
 * named queues locked for 4 hours; here each pool holds a session advisory lock on its id
 * (`worker:<pool id>`) on a connection of its own for as long as it lives. A process that can
 * take the lock of a pool that holds jobs knows that pool's process is gone (the server freed
 * the lock when its connection closed) and, in one transaction, puts that pool's rows back to
 * `pending` and calls graphile-worker's `force_unlock_workers` (what its WorkerUtils'
 * `forceUnlockWorkers` runs) so the jobs and their chats' queues run again within seconds.
 */
export class GraphileLiveness {
  private client: pg.Client | undefined;
  private readonly held = new Set<string>();
  private stopped = false;
  /** No other process is judged dead before this time (`Date.now()`): see {@link outageGraceMs}. */
  private judgeAfter = 0;
  /**
   * The sweep's statements (every 2 s, idle or not) and the release, on `pg` directly
   * (`PostgresRawSql`): an idle process makes no Prisma client (docs/performance.md, "Idle memory").
   */
  private readonly raw: RawSql;

  constructor(
    db: DatabaseClient,
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {
    this.raw = rawSqlOf(db);
  }

  /** Opens the connection that will hold this process's pool locks. */
  async connect(): Promise<void> {
    this.stopped = false;
    const client = new pg.Client({
      connectionString: this.connectionString,
      keepAlive: true,
      application_name: livenessApplicationName,
    });
    client.on("error", (error) => {
      // The server freed our locks with the session: other processes may now release our jobs.
      // The next sweep reconnects and takes them again.
      this.logger.error({ err: error }, "work queue: the connection holding this worker's liveness lock broke");
      this.noteOutage();
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
    });
    await client.connect();
    this.client = client;
  }

  /** Hold the lock of a pool of this process (its id is new, so the lock is free). */
  async hold(workerId: string): Promise<void> {
    const client = this.requireClient();
    await client.query("SELECT pg_advisory_lock($1::bigint)", [advisoryKey(`worker:${workerId}`)]);
    this.held.add(workerId);
  }

  /** The liveness connection is open (opened again, the locks taken again, if it broke). */
  async connected(): Promise<void> {
    if (this.client) return;
    if (!(await this.reconnect()))
      throw new StorageError("storage.failed", "the connection for the liveness lock could not be opened again");
  }

  /** After a broken liveness connection: a new one, holding this process's locks again. */
  private async reconnect(): Promise<pg.Client | undefined> {
    try {
      await this.connect();
    } catch (error) {
      this.logger.warn({ err: error }, "work queue: cannot reach the database to hold the liveness lock again");
      return undefined;
    }
    const client = this.requireClient();
    for (const workerId of this.held) {
      // try: another process may hold it for a moment while it judges us.
      const taken = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS held", [
        advisoryKey(`worker:${workerId}`),
      ]);
      if (taken.rows[0]?.held !== true) {
        await client.end().catch(() => undefined);
        this.client = undefined;
        return undefined;
      }
    }
    this.logger.warn({ workers: [...this.held] }, "work queue: holding the liveness lock again");
    this.noteOutage();
    return client;
  }

  /** The pools of this process whose locks it holds (or will take again). */
  heldWorkers(): string[] {
    return [...this.held];
  }

  /** The database went away for a while (seen by the queue): others get time to take their locks again. */
  noteOutage(): void {
    this.judgeAfter = Date.now() + outageGraceMs;
  }

  /** Release the work of every dead pool that holds graphile-worker jobs. */
  async sweep(maxAttempts: number, now: Date): Promise<ReleasedWork> {
    const released: ReleasedWork = { workers: [], requeued: 0, failed: 0 };
    const client = this.client ?? (this.stopped ? undefined : await this.reconnect());
    if (!client || Date.now() < this.judgeAfter) return released;
    const holders = await this.raw.rows<{ worker: string }>(sql`
      SELECT DISTINCT locked_by AS worker FROM graphile_worker.jobs
      WHERE locked_by IS NOT NULL AND locked_at < now() - ${judgeAfterMs}::float8 * interval '1 millisecond'`);
    for (const { worker } of holders) {
      if (this.held.has(worker)) continue;
      const key = advisoryKey(`worker:${worker}`);
      const taken = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS held", [key]);
      if (taken.rows[0]?.held !== true) continue; // alive: it holds its lock
      try {
        const counts = await this.release([worker], maxAttempts, now);
        released.workers.push(worker);
        released.requeued += counts.requeued;
        released.failed += counts.failed;
        this.logger.warn({ worker, ...counts }, "work queue: released the jobs of a dead process");
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
      }
    }
    return released;
  }

  /**
   * Our rows claimed by `workers` go back to `pending` (or `failed` when out of attempts) and
   * graphile-worker unlocks their jobs and queues: one transaction.
   */
  async release(workers: string[], maxAttempts: number, now: Date): Promise<{ requeued: number; failed: number }> {
    const patterns = workers.map((worker) => `${worker}:%`);
    const [failed, requeued] = await this.raw.batch([
      sql`
        UPDATE "Job" SET "state" = 'failed', "lockedBy" = NULL, "lockedAt" = NULL, "finishedAt" = ${now}, "lastError" = ${interrupted}
        WHERE "state" = 'running' AND "attempts" >= ${maxAttempts} AND "lockedBy" LIKE ANY (${patterns}::text[])
        RETURNING "seq"`,
      sql`
        UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL, "lastError" = ${interrupted}
        WHERE "state" = 'running' AND "lockedBy" LIKE ANY (${patterns}::text[])
        RETURNING "seq"`,
      // A CTE with a volatile call always runs; counting its row reads no `void` value.
      sql`
        WITH unlocked AS (SELECT graphile_worker.force_unlock_workers(${workers}::text[]))
        SELECT count(*)::int AS unlocked FROM unlocked`,
    ]);
    return { requeued: requeued?.length ?? 0, failed: failed?.length ?? 0 };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    // Closing the session frees the locks; the pools were shut down before this.
    await client?.end().catch(() => undefined);
  }

  private requireClient(): pg.Client {
    if (!this.client) throw new StorageError("internal", "the liveness connection is not open");
    return this.client;
  }
}
