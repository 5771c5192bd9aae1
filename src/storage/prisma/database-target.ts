import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../errors/roundtable-error.js";

/** The default database: a SQLite file under `./data`. */
export const defaultDatabaseUrl = "file:./data/roundtable.db";

/** Which database a `DATABASE_URL` names, with what each driver needs. */
export type DatabaseTarget =
  | {
      provider: "sqlite";
      /** The URL handed to libsql (`file:` + an absolute path). */
      url: string;
      /** The database file. */
      path: string;
    }
  | { provider: "postgresql"; url: string };

/**
 * Read a `DATABASE_URL`: `file:...` is SQLite (a relative path is taken from `cwd`),
 * `postgres://` / `postgresql://` is PostgreSQL. Anything else is a configuration error.
 */
export function parseDatabaseUrl(
  databaseUrl: string = defaultDatabaseUrl,
  cwd: string = process.cwd(),
): DatabaseTarget {
  const url = databaseUrl.trim();
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { provider: "postgresql", url };
  if (url.startsWith("file:")) {
    const path = sqlitePath(url, cwd);
    return { provider: "sqlite", url: `file:${path}`, path };
  }
  throw new ConfigError(
    `DATABASE_URL must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL), got ${redactDatabaseUrl(url)}`,
  );
}

/** The directory that must exist before SQLite can create its file. */
export function sqliteDirectory(target: Extract<DatabaseTarget, { provider: "sqlite" }>): string {
  return dirname(target.path);
}

function sqlitePath(url: string, cwd: string): string {
  const withoutQuery = url.split("?")[0] ?? url;
  if (withoutQuery.startsWith("file://")) {
    try {
      return fileURLToPath(withoutQuery);
    } catch (error) {
      throw new ConfigError(`DATABASE_URL is not a usable file URL: ${withoutQuery}`, { cause: error });
    }
  }
  const path = decodeURIComponent(withoutQuery.slice("file:".length));
  if (path === "" || path === ":memory:") {
    throw new ConfigError(
      "DATABASE_URL must name a SQLite file (file:./data/roundtable.db); in-memory databases lose everything",
    );
  }
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The URL for logs and messages, without its password. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}
