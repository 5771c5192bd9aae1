import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { StorageError } from "../errors/roundtable-error.js";
import { packageRoot } from "../config/package-root.js";
import type { Logger } from "../log/logger.js";
import type { DatabaseTarget } from "./prisma/database-target.js";

/** One migration folder: `prisma/<provider>/migrations/<name>/migration.sql`. */
export interface Migration {
  name: string;
  sql: string;
  /** sha256 of the SQL, recorded with it; a later edit of an applied file is reported. */
  checksum: string;
}

/** The table where applied migrations are recorded (not Prisma's own). */
export const migrationsTable = "_roundtable_migrations";

/** The package's `prisma/` folder, found from this file, not from the working directory. */
export const prismaFolder = join(packageRoot(), "prisma");

/** The migrations shipped for a provider, in the order they apply. */
export async function listMigrations(
  provider: DatabaseTarget["provider"],
  prismaDirectory: string = prismaFolder,
): Promise<Migration[]> {
  const root = join(prismaDirectory, provider, "migrations");
  const entries = await readdir(root, { withFileTypes: true }).catch((error: unknown) => {
    throw new StorageError("storage.failed", `no migrations folder at ${root}`, { cause: error });
  });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrations: Migration[] = [];
  for (const name of names) {
    const sql = await readFile(join(root, name, "migration.sql"), "utf8").catch(() => undefined);
    if (sql === undefined) continue;
    migrations.push({ name, sql, checksum: createHash("sha256").update(sql).digest("hex") });
  }
  return migrations;
}

/** Warn about files edited after they were applied and about applied migrations this code lacks. */
export function reportDrift(logger: Logger, migrations: Migration[], recorded: Map<string, string>): void {
  const known = new Set(migrations.map((migration) => migration.name));
  for (const migration of migrations) {
    const checksum = recorded.get(migration.name);
    if (checksum !== undefined && checksum !== migration.checksum) {
      logger.warn(
        { migration: migration.name },
        "an applied migration's file has changed since; the database keeps the old version",
      );
    }
  }
  for (const name of recorded.keys()) {
    if (!known.has(name))
      logger.warn(
        { migration: name },
        "the database has a migration this version does not know (newer code ran here?)",
      );
  }
}
