import type { Logger } from "../log/logger.js";
import { listMigrations } from "./migrate-files.js";
import { parseDatabaseUrl } from "./prisma/database-target.js";

export { listMigrations, type Migration, migrationsTable, prismaFolder } from "./migrate-files.js";

export interface MigrateOptions {
  databaseUrl?: string;
  logger: Logger;
  /** Where the `sqlite/` and `postgresql/` folders are (tests). Default: the package's `prisma/`. */
  prismaDirectory?: string;
}

/**
 * Apply every migration not yet applied, in name order, each in its own transaction together
 * with its record. Running it again applies nothing. Two processes starting at once on
 * PostgreSQL take turns (an advisory lock); on SQLite the write lock does the same.
 */
export async function migrateDatabase(options: MigrateOptions): Promise<{ applied: string[] }> {
  const target = parseDatabaseUrl(options.databaseUrl);
  const migrations = await listMigrations(target.provider, options.prismaDirectory);
  const logger = options.logger.child({ component: "migrate" });
  // Each runner loads its own driver: a start loads only the one its database needs.
  const applied =
    target.provider === "sqlite"
      ? await (await import("./migrate-sqlite.js")).applySqliteMigrations(target, migrations, logger)
      : await (await import("./migrate-postgres.js")).applyPostgresMigrations(target, migrations, logger);
  if (applied.length > 0) logger.info({ applied }, "database migrated");
  else logger.debug("database schema is up to date");
  return { applied };
}
