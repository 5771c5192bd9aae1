/** SQLite under ./data unless `DATABASE_URL` says otherwise. */
export const defaultDatabaseUrl = "file:./data/roundtable.db";

/** `DATABASE_URL` (a `file:` SQLite path or a `postgresql://` URL), else {@link defaultDatabaseUrl}. */
export function resolveDatabaseUrl(env: Record<string, string | undefined>): string {
  const url = env.DATABASE_URL?.trim();
  return url === undefined || url === "" ? defaultDatabaseUrl : url;
}

/** The URL with any password replaced, safe for logs and tables. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}
