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

/** The locks' connection's `application_name` (operators see it in `pg_stat_activity`). */
const locksApplicationName = "roundtable-locks";

/** The one connection a process holds its singleton locks on, and what aborts when it breaks. */
interface Session {
  client: pg.Client;
  lost: AbortController;
}

/**
 * {@link SingletonLock} over PostgreSQL session advisory locks (`pg_try_advisory_lock`), all of
 * a process's on one connection of their own, opened while some lock is held or asked for: the
 * server frees them the moment that connection closes, a crash included, and every lease's
 * `lost` aborts when it breaks. One connection for every bot's lock, however many bots, so a
 * process's connections stay within its budget (`processConnections` in `postgres-pool.ts`).
 * Advisory locks are re-entrant within a session, so a name held or being asked for in this
 * process is not asked for again until it is free here.
 */
export class PostgresSingletonLock implements SingletonLock {
  private session: Session | undefined;
  private connecting: Promise<Session> | undefined;
  /** Names held here, each with the session it is held on, and names being asked for now. */
  private readonly held = new Map<string, Session>();
  private readonly asking = new Set<string>();
  /** Acquires under way and leases not released: the connection stays open while there are any. */
  private users = 0;

  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {}

  async acquire(name: string, signal: AbortSignal): Promise<SingletonLease> {
    const key = advisoryKey(name);
    let waitingLogged = false;
    this.users++;
    let leased = false;
    try {
      for (;;) {
        signal.throwIfAborted();
        try {
          if (!this.held.has(name) && !this.asking.has(name)) {
            this.asking.add(name);
            try {
              const session = await this.connect();
              const result = await session.client.query<{ held: boolean }>(
                "SELECT pg_try_advisory_lock($1::bigint) AS held",
                [key],
              );
              if (result.rows[0]?.held === true && !session.lost.signal.aborted) {
                this.held.set(name, session);
                leased = true;
                this.logger.info({ lock: name }, "singleton lock taken");
                return this.lease(session, name, key);
              }
            } finally {
              this.asking.delete(name);
            }
          }
          if (!waitingLogged) {
            this.logger.info({ lock: name }, "another process holds the singleton lock: waiting to take over");
            waitingLogged = true;
          }
          await sleep(retryMs, undefined, { signal });
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          this.logger.warn({ err: error, lock: name }, "could not ask for a singleton lock; trying again");
          await sleep(retryMs, undefined, { signal });
        }
      }
    } finally {
      if (!leased) this.leave();
    }
  }

  private lease(session: Session, name: string, key: string): SingletonLease {
    let released: Promise<void> | undefined;
    return {
      lost: session.lost.signal,
      release: () => {
        released ??= (async () => {
          if (this.held.get(name) === session) {
            this.held.delete(name);
            if (!session.lost.signal.aborted) {
              // A failed unlock (the connection broke meanwhile) freed the lock with its session.
              await session.client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => undefined);
            }
          }
          this.logger.info({ lock: name }, "singleton lock released");
          this.leave();
        })();
        return released;
      },
    };
  }

  /** One user fewer; the last closes the connection (closing it frees nothing still held). */
  private leave(): void {
    this.users--;
    const session = this.session;
    if (this.users > 0 || !session) return;
    this.session = undefined;
    session.client.end().catch(() => undefined);
  }

  /** The open session, or a new one (one connect however many ask at once). */
  private connect(): Promise<Session> {
    const open = this.session;
    if (open && !open.lost.signal.aborted) return Promise.resolve(open);
    this.connecting ??= this.openSession().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async openSession(): Promise<Session> {
    // Loaded here, not with the module: a SQLite service never needs the PostgreSQL driver.
    const { Client } = (await import("pg")).default;
    const client = new Client({
      connectionString: this.connectionString,
      keepAlive: true,
      application_name: locksApplicationName,
    });
    const lost = new AbortController();
    const session: Session = { client, lost };
    client.on("error", (error) => {
      const locks = [...this.held].flatMap(([name, holder]) => (holder === session ? [name] : []));
      if (locks.length > 0) this.logger.warn({ err: error, locks }, "the connection holding singleton locks broke");
      lost.abort(error);
    });
    client.on("end", () => lost.abort(new Error("connection ended")));
    lost.signal.addEventListener(
      "abort",
      () => {
        // Every lock held on it is gone with it: their names may be asked for again.
        for (const [name, holder] of this.held) if (holder === session) this.held.delete(name);
        if (this.session === session) this.session = undefined;
        client.end().catch(() => undefined);
      },
      { once: true },
    );
    try {
      await client.connect();
    } catch (error) {
      lost.abort(error);
      throw error;
    }
    this.session = session;
    return session;
  }
}
