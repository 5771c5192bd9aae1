import { mkdir } from "node:fs/promises";
import { errorMessage, StorageError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { type Migration, migrationsTable, reportDrift } from "./migrate-files.js";
import { type DatabaseTarget, sqliteDirectory } from "./prisma/database-target.js";
import { NativeSqliteConnection } from "./prisma/native-sqlite-connection.js";
import { defaultBusyTimeoutMs, sqliteFileLock } from "./prisma/sqlite-client.js";

/**
 * SQLite: one connection (libsql's native module, as the store's); each migration runs as one
 * script `BEGIN IMMEDIATE … COMMIT` with its record, after checking (inside the transaction)
 * that nobody applied it meanwhile. A script that fails is rolled back.
 */
export async function applySqliteMigrations(
  target: Extract<DatabaseTarget, { provider: "sqlite" }>,
  migrations: Migration[],
  logger: Logger,
): Promise<string[]> {
  await mkdir(sqliteDirectory(target), { recursive: true });
  // Other connections of this process wait their turn here rather than in SQLite's busy handler.
  return sqliteFileLock(target.path).run(() => applyAll(target, migrations, logger));
}

async function applyAll(
  target: Extract<DatabaseTarget, { provider: "sqlite" }>,
  migrations: Migration[],
  logger: Logger,
): Promise<string[]> {
  const client = new NativeSqliteConnection(target.path);
  const applied: string[] = [];
  try {
    await client.execute(`PRAGMA busy_timeout = ${defaultBusyTimeoutMs}`);
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute(
      `CREATE TABLE IF NOT EXISTS "${migrationsTable}" ("name" TEXT NOT NULL PRIMARY KEY, "checksum" TEXT NOT NULL, "appliedAt" TEXT NOT NULL)`,
    );
    const recorded = await readRecorded(client);
    reportDrift(logger, migrations, recorded);
    for (const migration of migrations) {
      if (recorded.has(migration.name)) continue;
      await client.execute("BEGIN IMMEDIATE");
      const again = await client.execute({
        sql: `SELECT 1 FROM "${migrationsTable}" WHERE "name" = ?`,
        args: [migration.name],
      });
      if (again.rows.length > 0) {
        await client.execute("ROLLBACK");
        continue;
      }
      const record = `INSERT INTO "${migrationsTable}" ("name", "checksum", "appliedAt") VALUES (${literal(migration.name)}, ${literal(migration.checksum)}, ${literal(new Date().toISOString())});`;
      try {
        await client.executeMultiple(`${migration.sql}\n;\n${record}\nCOMMIT;`);
      } catch (error) {
        throw new StorageError("storage.failed", `migration ${migration.name} failed: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      logger.info({ migration: migration.name }, "migration applied");
      applied.push(migration.name);
    }
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw new StorageError("storage.failed", `migrating ${target.path} failed: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    client.close();
  }
  return applied;
}

async function readRecorded(client: NativeSqliteConnection): Promise<Map<string, string>> {
  const result = client.execute(`SELECT "name", "checksum" FROM "${migrationsTable}"`);
  // Rows come as arrays, in the order of the columns selected.
  return new Map(result.rows.map((row) => [String(row[0]), String(row[1])]));
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
