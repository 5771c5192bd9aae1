import { access, constants, stat } from "node:fs/promises";
import path from "node:path";
import type { CheckOutcome } from "./check-row.js";

/**
 * Reaches the database without changing it: PostgreSQL answers `select 1`; an existing SQLite
 * file opens and answers; a SQLite file not there yet is fine when its folder can be made
 * (`start` creates it).
 */
export async function checkDatabase(databaseUrl: string, cwd: string): Promise<CheckOutcome> {
  const { parseDatabaseUrl, redactDatabaseUrl } = await import("../../storage/prisma/database-target.js");
  const target = parseDatabaseUrl(databaseUrl, cwd);
  if (target.provider === "postgresql") {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      const result = await client.query<{ version: string }>("select current_setting('server_version') as version");
      return `PostgreSQL ${result.rows[0]?.version ?? ""} at ${redactDatabaseUrl(target.url)}`.trim();
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (!(await exists(target.path))) {
    const folder = await nearestExistingFolder(path.dirname(target.path));
    await access(folder, constants.W_OK);
    return `SQLite ${target.path} (created at start)`;
  }
  const { createClient } = await import("@libsql/client");
  const client = createClient({ url: target.url });
  try {
    await client.execute("select 1");
    return `SQLite ${target.path}`;
  } finally {
    client.close();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

async function nearestExistingFolder(folder: string): Promise<string> {
  let current = folder;
  while (!(await exists(current))) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}
