import pg from "pg";
import type { Logger } from "../../log/logger.js";
import { advisoryKey } from "./postgres-singleton-lock.js";

/** Whether the process behind a worker id is alive, and this process's own sign of life. */
export interface WorkerLiveness {
  /** Hold this worker's sign of life until {@link WorkerLiveness.close}. */
  holdOwn(workerId: string): Promise<void>;
  /** True when the worker's process is gone (its sign of life is free). */
  isGone(workerId: string): Promise<boolean>;
  close(): Promise<void>;
}

function workerLockName(workerId: string): string {
  return `worker:${workerId}`;
}

/**
 * Worker liveness over PostgreSQL session advisory locks: each process holds the lock of its
 * worker id on a connection of its own, which the server frees the moment that process dies.
 * Whoever can take a worker's lock knows the worker is gone (and lets the lock go again).
 */
export class PostgresWorkerLiveness implements WorkerLiveness {
  private client: pg.Client | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {}

  async holdOwn(workerId: string): Promise<void> {
    const client = await this.connection();
    await client.query("SELECT pg_advisory_lock($1::bigint)", [advisoryKey(workerLockName(workerId))]);
  }

  async isGone(workerId: string): Promise<boolean> {
    const client = await this.connection();
    const key = advisoryKey(workerLockName(workerId));
    const taken = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS held", [key]);
    if (taken.rows[0]?.held !== true) return false;
    await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
    return true;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // Closing the session frees the worker's lock: other processes may take its jobs back.
    await client?.end().catch(() => undefined);
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "the connection holding this worker's liveness lock broke");
      if (this.client === client) this.client = undefined;
    });
    await client.connect();
    this.client = client;
    return client;
  }
}
