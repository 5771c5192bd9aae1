import type { Client, InStatement, ResultSet, Transaction, TransactionMode } from "@libsql/client";
import { AsyncLock } from "./async-lock.js";
import { NativeSqliteConnection } from "./native-sqlite-connection.js";

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
export const defaultBusyTimeoutMs = 5_000;

/**
 * SQLite's own busy handler sleeps on the calling thread, which is the event loop: a file
 * locked by another process for seconds would leave `/healthz` and every timer unanswered that
 * long. It waits only this long; the rest of the busy timeout is waited here, between tries,
 * with the event loop free.
 */
const nativeBusyWaitMs = 20;
const busyRetryMs = [10, 25, 50, 100, 200] as const;

/** Whether `error` is SQLite's "the file is locked by another connection" (SQLITE_BUSY, SQLITE_LOCKED). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * One lock per database file in this process. SQLite's busy handler sleeps on the calling
 * thread, so two connections of one process waiting on each other would freeze the event loop
 * until the timeout; taking turns here first means the wait is only ever on other processes.
 */
const fileLocks = new Map<string, AsyncLock>();

/** The lock every connection of this process to `path` takes turns on. */
export function sqliteFileLock(path: string): AsyncLock {
  let lock = fileLocks.get(path);
  if (!lock) {
    lock = new AsyncLock();
    fileLocks.set(path, lock);
  }
  return lock;
}

export interface SqliteClientOptions {
  /** `file:` + absolute path. */
  url: string;
  /** The database file (the lock key). */
  path: string;
  busyTimeoutMs?: number;
}

/**
 * A libsql client that keeps one connection for its whole life, so the per-connection
 * pragmas (busy timeout) hold. libsql's own `transaction()` hands its connection to the
 * transaction and opens a fresh one without them; here a transaction is `BEGIN IMMEDIATE`
 * on the same connection instead (write intent up front: no SQLITE_BUSY when a read would
 * later upgrade to a write). Only the members the Prisma adapter and the migration runner use
 * are provided.
 */
export function openSqliteClient(options: SqliteClientOptions): Client {
  // The adapter and the runner call execute, executeMultiple, transaction and close only.
  return new SerialSqliteClient(options) as unknown as Client;
}

class SerialSqliteClient {
  readonly protocol = "file";
  private readonly inner: NativeSqliteConnection;
  private readonly lock: AsyncLock;
  private readonly busyTimeoutMs: number;
  private prepared: Promise<void> | undefined;

  constructor(options: SqliteClientOptions) {
    this.inner = new NativeSqliteConnection(options.path);
    this.lock = sqliteFileLock(options.path);
    this.busyTimeoutMs = options.busyTimeoutMs ?? defaultBusyTimeoutMs;
  }

  get closed(): boolean {
    return this.inner.closed;
  }

  execute(statement: InStatement): Promise<ResultSet> {
    return this.lock.run(async () => {
      await this.prepare();
      return this.whileBusy(() => this.inner.execute(statement));
    });
  }

  /**
   * Run `attempt` (one statement outside a transaction, or a `BEGIN`: nothing done yet when it
   * is refused) again while another process holds the file's write lock, up to the busy timeout.
   */
  private async whileBusy<T>(attempt: () => T): Promise<T> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (let tries = 0; ; tries++) {
      try {
        await this.prepare();
        return attempt();
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        // The refused statement cannot be reset: a fresh connection (`NativeSqliteConnection.reopen`).
        this.inner.reopen();
        this.prepared = undefined;
        if (Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, busyRetryMs[Math.min(tries, busyRetryMs.length - 1)]));
      }
    }
  }

  /** A script outside any transaction (libsql rolls back an open one around it). */
  executeMultiple(sql: string): Promise<void> {
    return this.lock.run(async () => {
      await this.prepare();
      await this.inner.executeMultiple(sql);
    });
  }

  async batch(statements: InStatement[]): Promise<ResultSet[]> {
    const transaction = await this.transaction("write");
    try {
      const results = await transaction.batch(statements);
      await transaction.commit();
      return results;
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    const release = await this.lock.acquire();
    try {
      await this.prepare();
      await this.whileBusy(() => this.inner.execute(mode === "read" ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE"));
    } catch (error) {
      release();
      throw error;
    }
    return new SerialTransaction(this.inner, release) as unknown as Transaction;
  }

  close(): void {
    this.inner.close();
  }

  /** Per-connection settings, once, before the first statement. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      // Not kept when it fails (a locked file): the next statement sets the pragmas again.
      const nativeWait = Math.min(nativeBusyWaitMs, Math.max(0, Math.floor(this.busyTimeoutMs)));
      await this.inner.execute(`PRAGMA busy_timeout = ${nativeWait}`);
      await this.inner.execute("PRAGMA journal_mode = WAL");
      await this.inner.execute("PRAGMA synchronous = NORMAL");
    })();
    this.prepared.catch(() => {
      this.prepared = undefined;
    });
    return this.prepared;
  }
}

/** A transaction on the client's own connection; it holds the file lock until it ends. */
class SerialTransaction {
  private finished = false;

  constructor(
    private readonly connection: NativeSqliteConnection,
    private readonly release: () => void,
  ) {}

  get closed(): boolean {
    return this.finished;
  }

  async execute(statement: InStatement): Promise<ResultSet> {
    this.assertOpen();
    return this.connection.execute(statement);
  }

  async batch(statements: InStatement[]): Promise<ResultSet[]> {
    const results: ResultSet[] = [];
    for (const statement of statements) results.push(await this.execute(statement));
    return results;
  }

  executeMultiple(_sql: string): Promise<void> {
    // libsql's executeMultiple ends any open transaction on its connection.
    return Promise.reject(new Error("executeMultiple is not available inside a transaction on this connection"));
  }

  async commit(): Promise<void> {
    this.assertOpen();
    try {
      await this.connection.execute("COMMIT");
    } catch (error) {
      await this.rollback();
      throw error;
    }
    this.end();
  }

  async rollback(): Promise<void> {
    if (this.finished) return;
    try {
      await this.connection.execute("ROLLBACK");
    } catch {
      // SQLite may have rolled back already (a failed COMMIT, an I/O error): nothing is open.
    } finally {
      this.end();
    }
  }

  close(): void {
    if (!this.finished) void this.rollback();
  }

  private end(): void {
    this.finished = true;
    this.release();
  }

  private assertOpen(): void {
    // Programming error: Prisma sends nothing on a transaction it has committed or rolled back.
    if (this.finished) throw new Error("the transaction has ended");
  }
}
