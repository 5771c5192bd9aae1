import type { Client } from "@libsql/client";
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from "@prisma/driver-adapter-utils";
import { columnTypesOf, mapArgument, mapRow, mapSqliteError } from "./sqlite-conversion.js";

/**
 * Prisma's driver adapter for SQLite over this process's own connection
 * ({@link openSqliteClient}: libsql's native module, statements prepared once, one file lock).
 * It does what `@prisma/adapter-libsql` does with that connection, without loading
 * `@libsql/client` (its remote protocols, WebSocket and fetch stacks: ~50 ms and ~11 MiB at
 * every start, never used for a file). Statements take turns on the connection's file lock,
 * and a transaction holds it until it ends, so no lock of its own is needed here.
 */
export class SqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "sqlite";
  readonly adapterName = "roundtable-sqlite";

  private client: Client | undefined;

  constructor(private readonly open: () => Client) {}

  connect(): Promise<SqlDriverAdapter> {
    return Promise.resolve(new SqliteAdapter(this.connection()));
  }

  /**
   * The one connection, opened at first use and again after a close: Prisma's adapter and the
   * statements sent around Prisma's client (`SqliteRawSql`) share it, its lock and its prepared
   * statements.
   */
  connection(): Client {
    if (!this.client || this.client.closed) this.client = this.open();
    return this.client;
  }

  /** Closes the connection if it is open (what disposing Prisma's adapter does). */
  close(): Promise<void> {
    if (this.client && !this.client.closed) this.client.close();
    return Promise.resolve();
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return Promise.reject(new Error("roundtable's SQLite adapter has no shadow database (migrations are its own)"));
  }
}

/** Queries on a connection or inside one of its transactions. */
class SqliteQueryable {
  readonly provider = "sqlite";
  readonly adapterName = "roundtable-sqlite";

  constructor(protected readonly client: Pick<Client, "execute">) {}

  async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    const result = await this.run(query);
    const columnTypes = columnTypesOf(result.columnTypes, result.rows);
    return {
      columnNames: result.columns,
      columnTypes,
      rows: result.rows.map((row) => mapRow(row, columnTypes)),
    };
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    return (await this.run(query)).rowsAffected;
  }

  private async run(query: SqlQuery) {
    try {
      return await this.client.execute({
        sql: query.sql,
        args: query.args.map((argument, index) => mapArgument(argument, query.argTypes[index])),
      });
    } catch (error) {
      throw adapterError(error);
    }
  }
}

class SqliteAdapter extends SqliteQueryable implements SqlDriverAdapter {
  declare protected readonly client: Client;

  async executeScript(script: string): Promise<void> {
    try {
      await this.client.executeMultiple(script);
    } catch (error) {
      throw adapterError(error);
    }
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") {
      throw new DriverAdapterError({ kind: "InvalidIsolationLevel", level: isolationLevel });
    }
    try {
      // The connection begins it (BEGIN IMMEDIATE) and holds the file lock until commit or rollback.
      return new SqliteTransaction(await this.client.transaction("write"));
    } catch (error) {
      throw adapterError(error);
    }
  }

  dispose(): Promise<void> {
    this.client.close();
    return Promise.resolve();
  }
}

class SqliteTransaction extends SqliteQueryable implements Transaction {
  /** The transaction is begun by the connection, not by a statement Prisma sends. */
  readonly options = { usePhantomQuery: true };

  constructor(private readonly transaction: Awaited<ReturnType<Client["transaction"]>>) {
    super(transaction);
  }

  commit(): Promise<void> {
    return this.transaction.commit();
  }

  async rollback(): Promise<void> {
    await this.transaction.rollback();
  }
}

/** A SQLite error (with `code`, `rawCode`) as Prisma's error kinds; anything else as it is. */
function adapterError(error: unknown): unknown {
  if (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === "string" &&
    ["number", "undefined"].includes(typeof (error as { rawCode?: unknown }).rawCode)
  ) {
    return new DriverAdapterError(mapSqliteError(error as Error & { rawCode?: number }));
  }
  return error;
}
