import type { Pool } from "pg";
import type { Logger } from "../../log/logger.js";
import { countStatements, type StatementCount } from "./count-statements.js";
import type { DatabaseTarget } from "./database-target.js";
import type { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/index.js";
import { lazyClient } from "./lazy-client.js";
import { useRawSql } from "./raw-sql.js";
import { SqliteAdapterFactory } from "./sqlite-adapter.js";
import { openSqliteClient } from "./sqlite-client.js";
import { SqliteRawSql } from "./sqlite-raw-sql.js";

/**
 * The Prisma client, typed as the SQLite one. The PostgreSQL client is generated from the
 * same models (a test keeps the two schemas equal), so its model API is the same.
 */
export type DatabaseClient = SqlitePrismaClient;

export interface DatabaseClientOptions {
  busyTimeoutMs?: number;
  /** Where PostgreSQL connection errors (a server restart under an idle connection) are reported. */
  logger?: Logger;
  /** Counts the SQL statements sent (for `/metrics`). */
  statements?: StatementCount;
}

/** PostgreSQL: the pool a client's connections come from (graphile-worker shares it). */
const pools = new WeakMap<object, Pool>();

/** The `pg` pool of a PostgreSQL client made by {@link createDatabaseClient}, if any. */
export function postgresPoolOf(client: DatabaseClient): Pool | undefined {
  return pools.get(client);
}

/** Interactive transactions wait in line (one writer at a time on SQLite): be patient. */
const transactionOptions = { maxWait: 60_000, timeout: 60_000 };

/**
 * A Prisma client for the target, through its driver adapter (no native engine). Only the
 * target's generated client and driver are loaded (each client's runtime is ~230 kB of
 * JavaScript plus its query compiler).
 */
export async function createDatabaseClient(
  target: DatabaseTarget,
  options: DatabaseClientOptions = {},
): Promise<DatabaseClient> {
  if (target.provider === "postgresql") {
    const [{ createPostgresPool, sharedPoolSize }, { PostgresRawSql }] = await Promise.all([
      import("./postgres-pool.js"),
      import("./postgres-raw-sql.js"),
    ]);
    const logger = options.logger;
    // One pool for Prisma's client, the hot statements and graphile-worker; its clients count statements.
    const pool = createPostgresPool(target.url, logger, { max: sharedPoolSize, statements: options.statements });
    // Prisma's client (its adapter, runtime and engine) is loaded by the first statement that
    // needs it: a start and an idle process run none (docs/performance.md, "Idle memory").
    const client = lazyClient<DatabaseClient>(
      async () => {
        const [{ PrismaPg }, { PrismaClient }] = await Promise.all([
          import("@prisma/adapter-pg"),
          import("./generated/postgresql/index.js"),
        ]);
        const adapter = new PrismaPg(pool, {
          // The pool replaces a broken connection by itself; this only says that it happened.
          onConnectionError: (error) => logger?.warn({ err: error }, "database connection error"),
          // `$disconnect` ends the pool: the client is the last to close (the queues stop before it).
          disposeExternalPool: true,
        });
        // Same models, same generated model API: the PostgreSQL client is used through the SQLite type.
        return new PrismaClient({ adapter, transactionOptions }) as unknown as DatabaseClient;
      },
      // What the client's `$disconnect` would have ended: the pool.
      () => (pool.ended ? Promise.resolve() : pool.end()),
    );
    // The statements every message runs skip Prisma's client (docs/architecture.md, "The cost of a message").
    useRawSql(client, new PostgresRawSql(pool));
    pools.set(client, pool);
    return client;
  }
  // One connection with its pragmas, IMMEDIATE transactions, statements prepared once.
  const adapter = new SqliteAdapterFactory(() =>
    openSqliteClient({
      url: target.url,
      path: target.path,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    }),
  );
  const counted = options.statements ? countStatements(adapter, options.statements) : adapter;
  // Prisma's client is loaded and its engine started by the first statement that needs it: a
  // start and an idle process run none (docs/performance.md, "Idle memory").
  const client = lazyClient(
    async () => {
      const { PrismaClient } = await import("./generated/sqlite/index.js");
      return new PrismaClient({ adapter: counted, transactionOptions });
    },
    () => adapter.close(),
  );
  // The statements every message runs skip Prisma's client (docs/architecture.md, "The cost of a message").
  useRawSql(client, new SqliteRawSql(() => adapter.connection(), options.statements));
  return client;
}
