import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { Logger } from "../../log/logger.js";
import type { SingletonLease, SingletonLock } from "../../world/queue/singleton-lock.js";

/** How often a waiting process asks again for a lock another holds. */
const retryMs = 1_000;

/** The advisory lock key of a name: the first 8 bytes of its SHA-256, as a signed bigint. */
export function advisoryKey(name: string): string {
  return createHash("sha256").update(`roundtable:${name}`).digest().readBigInt64BE(0).toString();
}

/**
 * {@link SingletonLock} over PostgreSQL session advisory locks, each held on a connection of its
 * own (`pg_try_advisory_lock`): the server frees it the moment the holder's connection closes,
 * a crash included.
 */
export class PostgresSingletonLock implements SingletonLock {
  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {}

  async acquire(name: string, signal: AbortSignal): Promise<SingletonLease> {
    const key = advisoryKey(name);
    let waitingLogged = false;
    // Loaded here, not with the module: a SQLite service never needs the PostgreSQL driver.
    const { Client } = (await import("pg")).default;
    for (;;) {
      signal.throwIfAborted();
      const client = new Client({ connectionString: this.connectionString, keepAlive: true });
      const lost = new AbortController();
      client.on("error", (error) => {
        this.logger.warn({ err: error, lock: name }, "the connection holding a singleton lock broke");
        lost.abort(error);
      });
      client.on("end", () => lost.abort(new Error("connection ended")));
      try {
        await client.connect();
        for (;;) {
          const result = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS held", [
            key,
          ]);
          if (result.rows[0]?.held === true) {
            this.logger.info({ lock: name }, "singleton lock taken");
            return lease(client, lost, name, this.logger);
          }
          if (!waitingLogged) {
            this.logger.info({ lock: name }, "another process holds the singleton lock: waiting to take over");
            waitingLogged = true;
          }
          await sleep(retryMs, undefined, { signal });
        }
      } catch (error) {
        await client.end().catch(() => undefined);
        if (signal.aborted) throw signal.reason;
        this.logger.warn({ err: error, lock: name }, "could not ask for a singleton lock; trying again");
        await sleep(retryMs, undefined, { signal });
      }
    }
  }
}

function lease(client: pg.Client, lost: AbortController, name: string, logger: Logger): SingletonLease {
  let released: Promise<void> | undefined;
  return {
    lost: lost.signal,
    release() {
      released ??= (async () => {
        // Closing the session frees its advisory locks; no unlock round trip needed.
        await client.end().catch(() => undefined);
        logger.info({ lock: name }, "singleton lock released");
      })();
      return released;
    },
  };
}
