/**
 * Codes of a database that is away for now (refused, cut, restarting, locked by another
 * process), not misconfigured: network errors, PostgreSQL's server-state SQLSTATEs, Prisma's
 * connection codes and SQLite's busy, locked and I/O codes.
 */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "EAI_AGAIN",
  // PostgreSQL: shut down by the admin or a crash, cannot connect now (starting up), connection failures.
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08006",
  // Prisma: cannot reach the server, timed out, server closed the connection, pool timeout.
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
]);

const unreachableMessage =
  /Connection terminated|connection (closed|ended|lost|refused)|the database system is (starting up|shutting down)|terminating connection due to administrator command|database is locked|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_IOERR|disk I\/O error|Can't reach database server|the database does not answer/i;

/**
 * Whether `error` (or one of its causes) says the database cannot be reached for now, so that
 * waiting for it is right: a start waits (`src/app/wait-for-database.ts`), a channel keeps an
 * inbound item unconfirmed instead of skipping it (docs/reliability.md).
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== "object" || error === null) return false;
  const fields = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
    meta?: unknown;
    error?: unknown;
  };
  if (typeof fields.code === "string" && unreachableCodes.has(fields.code)) return true;
  if (typeof fields.message === "string" && unreachableMessage.test(fields.message)) return true;
  if (Array.isArray(fields.errors) && fields.errors.some((each) => isDatabaseUnreachable(each, depth + 1))) return true;
  const adapterError = (fields.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  if (adapterError !== undefined && isDatabaseUnreachable(adapterError, depth + 1)) return true;
  // grammY's BotError keeps what a handler threw in `error` (its message only prefixes the
  // inner one's, so a refusal read "connect ECONNREFUSED …" and its code was not seen).
  if (fields.error !== undefined && isDatabaseUnreachable(fields.error, depth + 1)) return true;
  return isDatabaseUnreachable(fields.cause, depth + 1);
}
