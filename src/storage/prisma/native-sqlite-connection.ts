import type { InStatement, InValue, ResultSet, Row } from "@libsql/client";
import { closeSync, openSync } from "node:fs";
import Database from "libsql";

/** Prepared statements kept per connection; Prisma's SQL repeats, so a few hundred cover it. */
const statementCacheLimit = 500;

interface CachedStatement {
  statement: ReturnType<Database.Database["prepare"]>;
  reader: boolean;
  columns: string[];
  columnTypes: string[];
}

/** A SQLite error in the shape Prisma's libsql adapter maps (`code`, `rawCode`, `message`). */
class SqliteDriverError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly rawCode: number | undefined,
  ) {
    super(message);
    this.name = "SqliteDriverError";
  }
}

/**
 * One connection to a SQLite file through libsql's native module, answering like
 * `@libsql/client` (`execute` → `ResultSet`, `executeMultiple`) but preparing each distinct
 * statement once and reusing it: the libsql client prepares every statement again on every
 * run, which was the largest single cost of a message.
 */
export class NativeSqliteConnection {
  private database: Database.Database;
  private readonly statements = new Map<string, CachedStatement>();
  private open = true;

  constructor(private readonly path: string) {
    // A new database file is its owner's alone (0600); SQLite gives its -wal, -shm and
    // -journal files the database file's mode, so they are private too.
    if (path !== ":memory:" && path !== "") {
      try {
        closeSync(openSync(path, "wx", 0o600));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    this.database = new Database(path);
  }

  /**
   * A new connection in place of this one, its statements dropped (the caller sets its pragmas
   * again). After SQLITE_BUSY, libsql leaves the refused statement mid-step with no way to reset
   * it: run again, it answered nothing without running (no rows, no changes: read as "the job
   * was taken back", which left it running for good), and while it lives a COMMIT on the
   * connection fails ("SQL statements in progress"). Only outside a transaction.
   */
  reopen(): void {
    if (!this.open) return;
    this.statements.clear();
    try {
      this.database.close();
    } catch {
      // Closed with a statement still pending: the new connection is what matters.
    }
    this.database = new Database(this.path);
  }

  get closed(): boolean {
    return !this.open;
  }

  execute(input: InStatement): ResultSet {
    const sql = typeof input === "string" ? input : input.sql;
    const args = typeof input === "string" ? [] : toArguments(input.args);
    try {
      const cached = this.prepared(sql);
      if (cached.reader) {
        const rows = (cached.statement.all(args) as unknown[][]).map(fromSqlRow);
        return resultSet(cached.columns, cached.columnTypes, rows, 0, undefined);
      }
      const info = cached.statement.run(args);
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      throw driverError(error);
    }
  }

  /** A script; like the libsql client, a transaction it leaves open is rolled back. */
  executeMultiple(sql: string): void {
    try {
      this.database.exec(sql);
    } catch (error) {
      throw driverError(error);
    } finally {
      if (this.database.inTransaction) this.database.exec("ROLLBACK");
    }
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.statements.clear();
    this.database.close();
  }

  private prepared(sql: string): CachedStatement {
    const known = this.statements.get(sql);
    if (known) return known;
    const statement = this.database.prepare(sql);
    const reader = statement.reader;
    if (reader) statement.raw(true);
    const definitions = reader ? statement.columns() : [];
    const cached: CachedStatement = {
      statement,
      reader,
      columns: definitions.map((column) => column.name),
      columnTypes: definitions.map((column) => column.type ?? ""),
    };
    if (this.statements.size >= statementCacheLimit) this.statements.clear();
    this.statements.set(sql, cached);
    return cached;
  }
}

function toArguments(args: unknown): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map((value) => toSqlValue(value as InValue));
  const named: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args as Record<string, InValue>)) {
    named[/^[@$:]/.test(name) ? name.slice(1) : name] = toSqlValue(value);
  }
  return named;
}

/** As `@libsql/client` converts arguments (booleans as 0/1, dates as milliseconds). */
function toSqlValue(value: InValue): unknown {
  if (typeof value === "number" && !Number.isFinite(value))
    throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments");
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError("undefined cannot be passed as argument to the database");
  return value;
}

/** Rows as arrays (what the adapter reads by index); blobs as exact ArrayBuffers. */
function fromSqlRow(row: unknown[]): Row {
  for (let index = 0; index < row.length; index++) {
    const value = row[index];
    if (value instanceof Buffer) row[index] = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  }
  return row as unknown as Row;
}

function resultSet(
  columns: string[],
  columnTypes: string[],
  rows: Row[],
  rowsAffected: number,
  lastInsertRowid: bigint | undefined,
): ResultSet {
  return {
    columns,
    columnTypes,
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON: () => ({ columns, columnTypes, rows, rowsAffected, lastInsertRowid: lastInsertRowid?.toString() }),
  };
}

function driverError(error: unknown): unknown {
  if (error instanceof Error) {
    const { code, rawCode } = error as Error & { code?: unknown; rawCode?: unknown };
    if (typeof code === "string")
      return new SqliteDriverError(error.message, code, typeof rawCode === "number" ? rawCode : undefined);
  }
  return error;
}
