import pg from "pg";
import { errorMessage, StorageError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { type Migration, migrationsTable, reportDrift } from "./migrate-files.js";
import { type DatabaseTarget, redactDatabaseUrl } from "./prisma/database-target.js";
import { graphileLogFactory } from "./prisma/graphile-logger.js";

/** The advisory lock key that serialises migrations across processes ("rtmg"). */
const migrationLockKey = 0x72746d67;

/**
 * PostgreSQL: one connection holding a session advisory lock for the whole run, so two
 * processes starting at once take turns; each migration and its record in one transaction.
 */
export async function applyPostgresMigrations(
  target: Extract<DatabaseTarget, { provider: "postgresql" }>,
  migrations: Migration[],
  logger: Logger,
): Promise<string[]> {
  // Loaded while our own migrations talk to the server (its module load is a good part of a start).
  const graphileWorker = import("graphile-worker");
  graphileWorker.catch(() => undefined); // reported where it is awaited
  const client = new pg.Client({ connectionString: target.url });
  try {
    await client.connect();
  } catch (error) {
    throw new StorageError(
      "storage.failed",
      `cannot connect to ${redactDatabaseUrl(target.url)}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  // An error on an idle client (server restart) must not crash the process; the next query reports it.
  client.on("error", (error) => logger.warn({ err: error }, "migration connection error"));
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [migrationLockKey]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${migrationsTable}" ("name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "appliedAt" TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const result = await client.query<{ name: string; checksum: string }>(
      `SELECT "name", "checksum" FROM "${migrationsTable}"`,
    );
    const recorded = new Map(result.rows.map((row) => [row.name, row.checksum]));
    reportDrift(logger, migrations, recorded);
    for (const migration of migrations) {
      if (recorded.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO "${migrationsTable}" ("name", "checksum") VALUES ($1, $2)`, [
          migration.name,
          migration.checksum,
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw new StorageError("storage.failed", `migration ${migration.name} failed: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      logger.info({ migration: migration.name }, "migration applied");
      applied.push(migration.name);
    }
    await migrateGraphileWorker(await graphileWorker, target.url, logger);
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw new StorageError(
      "storage.failed",
      `migrating ${redactDatabaseUrl(target.url)} failed: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    // Ending the session releases the advisory lock.
    await client.end().catch(() => undefined);
  }
  return applied;
}

/**
 * graphile-worker's own schema (`graphile_worker`), which runs the work queue on PostgreSQL:
 * its migrations are its own (it records and locks them itself) and run here, after ours.
 */
async function migrateGraphileWorker(
  { Logger: GraphileLogger, runMigrations }: typeof import("graphile-worker"),
  connectionString: string,
  logger: Logger,
): Promise<void> {
  try {
    await runMigrations({ connectionString, logger: new GraphileLogger(graphileLogFactory(logger)) });
  } catch (error) {
    throw new StorageError("storage.failed", `graphile-worker's migrations failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
