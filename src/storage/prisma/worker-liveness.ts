import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { Logger } from "../../log/logger.js";
import type { DatabaseClient } from "./database-client.js";
import { advisoryKey } from "./postgres-singleton-lock.js";

/** How often a worker looks for jobs held by workers that died. */
export const livenessSweepMs = 2_000;

/**
 * PostgreSQL: each queue worker holds a session advisory lock on its own id, on a connection
 * of its own, for as long as it lives. A job left `running` by a worker whose lock another
 * worker can take belongs to a dead process (its connection closed, the server freed the lock):
 * its jobs go back to `pending` at once instead of waiting for their lease to run out. Steps are
 * idempotent by their keys, so a step taken back runs again and repeats nothing.
 */
export class WorkerLiveness {
  private client: pg.Client | undefined;

  constructor(
    private readonly db: DatabaseClient,
    private readonly connectionString: string,
    private readonly workerId: string,
    private readonly logger: Logger,
  ) {}

  /** Takes this worker's own lock (it is free: the id is new). */
  async start(): Promise<void> {
    // Loaded here, not with the module: a SQLite service never needs the PostgreSQL driver.
    const { Client } = (await import("pg")).default;
    const client = new Client({ connectionString: this.connectionString, keepAlive: true });
    client.on("error", (error) =>
      this.logger.error({ err: error }, "work queue: the connection holding this worker's liveness lock broke"),
    );
    await client.connect();
    await client.query("SELECT pg_advisory_lock($1::bigint)", [advisoryKey(`worker:${this.workerId}`)]);
    this.client = client;
  }

  /** Releases the jobs of dead workers; resolves with how many went back to `pending`. */
  async sweep(): Promise<number> {
    const client = this.client;
    if (!client) return 0;
    const holders = await this.db.$queryRaw<{ worker: string }[]>`
      SELECT DISTINCT split_part("lockedBy", ':', 1) AS worker FROM "Job" WHERE "state" = 'running'`;
    let released = 0;
    for (const { worker } of holders) {
      if (worker === this.workerId || worker === "") continue;
      const key = advisoryKey(`worker:${worker}`);
      const taken = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS held", [key]);
      if (taken.rows[0]?.held !== true) continue; // alive: it holds its lock
      try {
        const count = await this.db.$executeRaw`
          UPDATE "Job" SET "state" = 'pending', "lockedBy" = NULL, "lockedAt" = NULL,
            "lastError" = 'interrupted: the process running it died'
          WHERE "state" = 'running' AND "lockedBy" LIKE ${`${worker}:%`}`;
        if (count > 0) this.logger.warn({ worker, jobs: count }, "work queue: took back the jobs of a dead process");
        released += count;
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
      }
    }
    return released;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // Closing the session frees the lock; finished jobs were settled before this.
    await client?.end().catch(() => undefined);
    await sleep(0);
  }
}
