import pg from "pg";
import type { Logger } from "../../log/logger.js";
import type { StatementCount } from "./count-statements.js";

/**
 * A process's PostgreSQL connections in all, whatever its load and however many bots it runs
 * (docs/performance.md, "Real model speeds": connections ≤ the pool). The shared pool gets what
 * the connections of their own leave.
 */
export const processConnections = 10;

/** The write after each platform post (`PostgresOutboundWriter`): a post does not wait behind another's write. */
export const outboundWriterConnections = 2;

/** One each: the queue's liveness lock (`GraphileLiveness`) and the singleton locks (`PostgresSingletonLock`). */
const sessionConnections = 2;

/**
 * Connections of one process's shared pool: Prisma's client, the hot statements
 * (`PostgresRawSql`) and graphile-worker (one held for its LISTEN, the rest shared by its job
 * fetches and completions) all take theirs from it. Statements are short, so a few serve many
 * concurrent steps; more would only add server processes.
 */
export const sharedPoolSize = processConnections - outboundWriterConnections - sessionConnections;

/**
 * A `pg` pool whose clients count every statement they send (for `/metrics` and the bench), so
 * Prisma's, the hot path's and graphile-worker's statements are counted alike, once each.
 */
export function createPostgresPool(
  connectionString: string,
  logger: Logger | undefined,
  options: { max: number; statements?: StatementCount | undefined },
): pg.Pool {
  const Client = options.statements === undefined ? pg.Client : countingClient(options.statements);
  const pool = new pg.Pool({ connectionString, max: options.max, keepAlive: true, Client });
  // An idle connection that breaks (a server restart) is replaced by the pool; say so, do not crash.
  pool.on("error", (error) => logger?.warn({ err: error }, "database connection lost (idle); it will be replaced"));
  keepBrokenClientsQuiet(pool, logger);
  return pool;
}

/**
 * A connection that breaks while it is checked out (a transaction's, graphile-worker's LISTEN
 * client between notifications) emits `error` with no listener of the pool's on it, which
 * would end the process: every client gets one for its whole life. Its query in flight, if
 * any, fails by itself; the pool drops the client when it is released broken.
 */
export function keepBrokenClientsQuiet(pool: pg.Pool, logger: Logger | undefined): void {
  pool.on("connect", (client) => {
    client.on("error", (error) => logger?.warn({ err: error }, "database connection lost (in use)"));
  });
}

function countingClient(statements: StatementCount): typeof pg.Client {
  return class CountingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this only counts and forwards.
    override query(...args: any[]): any {
      statements.value += 1;
      // biome-ignore lint/suspicious/noExplicitAny: see above.
      return (super.query as (...forwarded: any[]) => any)(...args);
    }
  };
}
