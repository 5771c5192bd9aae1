import pg from "pg";
import type { Logger } from "../../log/logger.js";
import type { StatementCount } from "./count-statements.js";

/**
 * The `pg` pool graphile-worker runs on: one connection for its LISTEN, the rest shared by its
 * workers' job fetches and completions (short statements, so a few serve many workers). Its
 * statements count with the store's, so `/metrics` and the bench see the queue's cost too.
 */
export function createGraphilePool(
  connectionString: string,
  concurrency: number,
  logger: Logger,
  statements?: StatementCount,
): pg.Pool {
  const Client = statements === undefined ? pg.Client : countingClient(statements);
  const pool = new pg.Pool({ connectionString, max: Math.min(concurrency, 4) + 2, keepAlive: true, Client });
  // An idle connection that breaks (a server restart) is replaced by the pool; say so, do not crash.
  pool.on("error", (error) => logger.warn({ err: error }, "work queue: a graphile-worker connection was lost"));
  return pool;
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
