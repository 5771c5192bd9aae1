import type { Client, ResultSet } from "@libsql/client";
import { type ColumnType, ColumnTypeEnum, DriverAdapterError } from "@prisma/driver-adapter-utils";
import type { StatementCount } from "./count-statements.js";
import type { RawSql, SqlStatement } from "./raw-sql.js";
import { columnTypesOf, mapArgument, mapSqliteError } from "./sqlite-conversion.js";

/**
 * The hot statements straight on the SQLite connection Prisma's adapter uses (the same file
 * lock, the same prepared statements), without Prisma's client: its query interpreter, tracing
 * and result mapping cost several times what SQLite does for these one-row statements. Values
 * are written and rows read as the adapter and `$queryRaw` do (dates as ISO text in, `Date`
 * out), so rows written one way read the same the other way. Must not be called while a Prisma
 * transaction of this process is waiting on it: both take the file lock.
 */
export class SqliteRawSql implements RawSql {
  /** Each call site's text with `?` for its values (a template's strings are one object per site). */
  private readonly texts = new WeakMap<TemplateStringsArray, string>();

  constructor(
    private readonly connection: () => Client,
    private readonly count: StatementCount | undefined,
  ) {}

  async rows<Row>(statement: SqlStatement): Promise<Row[]> {
    return toRows(await this.run(this.connection(), statement)) as Row[];
  }

  async execute(statement: SqlStatement): Promise<number> {
    return (await this.run(this.connection(), statement)).rowsAffected;
  }

  async batch(statements: readonly SqlStatement[]): Promise<unknown[][]> {
    // One statement is atomic by itself (Prisma's batches skip the transaction too).
    const only = statements.length === 1 ? statements[0] : undefined;
    if (only) return [await this.rows(only)];
    this.counted(1);
    const transaction = await this.connection()
      .transaction("write")
      .catch((error: unknown) => {
        throw adapterError(error);
      });
    try {
      const results: unknown[][] = [];
      for (const statement of statements) results.push(toRows(await this.run(transaction, statement)));
      this.counted(1);
      await transaction.commit().catch((error: unknown) => {
        throw adapterError(error);
      });
      return results;
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
  }

  private async run(on: Pick<Client, "execute">, statement: SqlStatement): Promise<ResultSet> {
    this.counted(1);
    try {
      return await on.execute({
        sql: this.text(statement.strings),
        args: statement.values.map((value) => mapArgument(value, undefined)),
      });
    } catch (error) {
      throw adapterError(error);
    }
  }

  private text(strings: TemplateStringsArray): string {
    let text = this.texts.get(strings);
    if (text === undefined) {
      text = strings.join("?");
      this.texts.set(strings, text);
    }
    return text;
  }

  private counted(statements: number): void {
    if (this.count) this.count.value += statements;
  }
}

/** Rows keyed by column, each value as `$queryRaw` gives it for the column's type. */
function toRows(result: ResultSet): Record<string, unknown>[] {
  if (result.rows.length === 0) return [];
  const types = columnTypesOf(result.columnTypes, result.rows);
  const columns = result.columns;
  return result.rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (let index = 0; index < columns.length; index++) {
      record[columns[index] as string] = toValue(row[index], types[index]);
    }
    return record;
  });
}

function toValue(value: unknown, type: ColumnType | undefined): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case ColumnTypeEnum.DateTime:
      return new Date(typeof value === "bigint" ? Number(value) : (value as string | number));
    case ColumnTypeEnum.Int32:
      return typeof value === "number" && !Number.isInteger(value) ? Math.trunc(value) : value;
    case ColumnTypeEnum.Int64:
      return typeof value === "bigint" ? value : BigInt(Math.trunc(Number(value)));
    case ColumnTypeEnum.Boolean:
      return value === true || value === 1 || value === 1n;
    case ColumnTypeEnum.Bytes:
      return value instanceof ArrayBuffer ? new Uint8Array(value) : value;
    default:
      return value;
  }
}

/** A SQLite error as the Prisma adapter reports it (what `isUniqueViolation` reads). */
function adapterError(error: unknown): unknown {
  if (error instanceof Error && typeof (error as { code?: unknown }).code === "string") {
    const mapped = new DriverAdapterError(mapSqliteError(error as Error & { rawCode?: number }));
    // Its own message is only the kind (`ColumnNotFound`); keep SQLite's words with it.
    if (mapped.message !== error.message) mapped.message = `${mapped.message}: ${error.message}`;
    return mapped;
  }
  return error;
}
