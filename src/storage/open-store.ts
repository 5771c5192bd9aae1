import { mkdir } from "node:fs/promises";
import { StorageError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { migrateDatabase } from "./migrate.js";
import { createDatabaseClient, postgresPoolOf } from "./prisma/database-client.js";
import { type DatabaseTarget, parseDatabaseUrl, redactDatabaseUrl, sqliteDirectory } from "./prisma/database-target.js";
import type { OutboundWriter } from "./prisma/postgres-outbound-writer.js";
import { PrismaStore } from "./prisma/prisma-store.js";
import { SqlWorkQueue, type SqlWorkQueueOptions, type StoredWorkQueue } from "./prisma/sql-work-queue.js";
import type { Store } from "../world/store.js";
import { localSingletonLock, type SingletonLock } from "../world/queue/singleton-lock.js";

export { defaultDatabaseUrl } from "./prisma/database-target.js";
export type { JobState, JobStatus, StoredWorkQueue } from "./prisma/sql-work-queue.js";

export interface OpenStoreOptions {
  /** `file:...` (SQLite, the default `file:./data/roundtable.db`) or `postgres(ql)://...`. */
  databaseUrl?: string;
  logger: Logger;
  /** Apply pending migrations before opening (default true). */
  migrate?: boolean;
  /** Time source for stored timestamps (tests). */
  clock?: () => Date;
  /** SQLite: how long to wait for another process's write lock. Default 5 s. */
  busyTimeoutMs?: number;
}

/** Queue settings; the logger defaults to the store's. */
export type QueueOptions = Partial<SqlWorkQueueOptions>;

/** An open database: the Store, stored work queues over it, and one way to close it all. */
export interface OpenedStore {
  store: Store;
  provider: DatabaseTarget["provider"];
  /** A work queue over the Job table of this database (one per process is the usual). */
  createQueue(options?: QueueOptions): StoredWorkQueue;
  /** Who holds once-per-bot connections (PostgreSQL: advisory locks; SQLite: this process). */
  singletonLock: SingletonLock;
  /** SQL statements sent so far through this store and its queues (for `/metrics`). */
  statementCount(): number;
  /** Stop the queues made here, then close the connection. */
  close(): Promise<void>;
}

/**
 * Open the database named by `databaseUrl`: SQLite through libsql (WAL, busy timeout) or
 * PostgreSQL through `pg`, both by Prisma driver adapters. Migrates first unless told not to,
 * and checks the connection, so a wrong URL fails here with a clear message.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const target = parseDatabaseUrl(options.databaseUrl);
  const logger = options.logger.child({ component: "storage" });
  if (target.provider === "sqlite") await mkdir(sqliteDirectory(target), { recursive: true });
  if (options.migrate !== false) await migrateDatabase({ databaseUrl: target.url, logger });

  const statements = { value: 0 };
  const db = await createDatabaseClient(target, {
    logger,
    statements,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  // PostgreSQL: the write after each platform post on connections of its own (one statement).
  let outboundWriter: OutboundWriter | undefined;
  if (target.provider === "postgresql") {
    const { PostgresOutboundWriter } = await import("./prisma/postgres-outbound-writer.js");
    try {
      outboundWriter = await PostgresOutboundWriter.open(target.url, logger, statements);
    } catch (error) {
      await db.$disconnect().catch(() => undefined);
      throw new StorageError("storage.failed", "the database does not answer", { cause: error });
    }
  }
  const store = new PrismaStore(db, options.clock, {
    recentMessages: target.provider === "sqlite",
    dialect: target.provider,
    ...(outboundWriter === undefined ? {} : { outboundWriter }),
  });
  try {
    await store.ping();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  logger.debug(
    { database: target.provider === "sqlite" ? target.path : redactDatabaseUrl(target.url) },
    "database open",
  );

  const singletonLock: SingletonLock =
    target.provider === "postgresql"
      ? new (await import("./prisma/postgres-singleton-lock.js")).PostgresSingletonLock(target.url, logger)
      : localSingletonLock;
  // PostgreSQL: graphile-worker runs the jobs (several processes may share the database).
  const { GraphileWorkQueue } =
    target.provider === "postgresql"
      ? await import("./prisma/graphile-work-queue.js")
      : { GraphileWorkQueue: undefined };
  const queues: StoredWorkQueue[] = [];
  let closed = false;
  return {
    store,
    provider: target.provider,
    statementCount: () => statements.value,
    singletonLock,
    createQueue(queueOptions: QueueOptions = {}) {
      const settings = {
        ...queueOptions,
        logger: queueOptions.logger ?? options.logger,
        ...(queueOptions.clock === undefined && options.clock !== undefined ? { clock: options.clock } : {}),
      };
      const pool = queueOptions.postgresUrl === undefined ? postgresPoolOf(db) : undefined;
      const queue =
        target.provider === "postgresql" && GraphileWorkQueue
          ? new GraphileWorkQueue(db, {
              ...settings,
              postgresUrl: queueOptions.postgresUrl ?? target.url,
              // graphile-worker on the store's pool (which counts its statements), not one of its own.
              ...(pool === undefined ? { statements } : { pool }),
            })
          : new SqlWorkQueue(db, target.provider, settings);
      queues.push(queue);
      return queue;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(queues.map((queue) => queue.stop()));
      await store.close();
    },
  };
}
