/** SQLite under ./data unless `DATABASE_URL` says otherwise. */
const defaultDatabaseUrl = "file:./data/roundtable.db";

/** `DATABASE_URL` (a `file:` SQLite path or a `postgresql://` URL), else {@link defaultDatabaseUrl}. */
export function resolveDatabaseUrl(env: Record<string, string | undefined>): string {
  const url = env.DATABASE_URL?.trim();
  return url === undefined || url === "" ? defaultDatabaseUrl : url;
}
