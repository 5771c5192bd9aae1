import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { RawSql, SqlStatement } from "./raw-sql.js";

/** PostgreSQL type ids whose text `pg` would read otherwise than `$queryRaw` does. */
const int8 = 20;
const timestamp = 1114;

// One function each, not one per column of every result (`pg` asks for each result's parsers).
const parseBigint = (value: string): bigint => BigInt(value);
const parseTimestamp = (value: string): Date => new Date(`${value.replace(" ", "T")}Z`);

/**
 * Values read as Prisma's `$queryRaw` reads them through `@prisma/adapter-pg`: `bigint`
 * (`COUNT(*)`, `bigint` columns) as a JavaScript `bigint`, `timestamp` (our dates, stored in
 * UTC without a zone) as a `Date` in UTC (not in the process's zone, as `pg` would). Set per
 * query, so graphile-worker's statements on the same pool keep `pg`'s defaults.
 */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
    if (oid === int8) return parseBigint;
    if (oid === timestamp) return parseTimestamp;
    return pg.types.getTypeParser(oid, format as "text") as (value: string) => unknown;
  },
};

/**
 * The hot statements straight on `pg` (the pool Prisma's adapter and graphile-worker use),
 * without Prisma's client: its query interpreter and result mapping cost several times what
 * PostgreSQL's own work does for these one-row statements. Each call site's statement is a
 * named prepared statement (parsed and planned once per connection). Values are written and
 * rows read as `@prisma/adapter-pg` and `$queryRaw` do (dates as UTC text without a zone in,
 * `Date` out), so rows written one way read the same the other way. Statements are counted by
 * the pool's clients (`createPostgresPool`). Loaded only for PostgreSQL (it loads `pg`).
 */
export class PostgresRawSql implements RawSql {
  /** Each call site's text with `$n` for its values, and its prepared statement's name. */
  private readonly prepared = new WeakMap<TemplateStringsArray, { name: string; text: string }>();
  private named = 0;

  constructor(private readonly pool: pg.Pool) {}

  async rows<Row>(statement: SqlStatement): Promise<Row[]> {
    return (await this.run(this.pool, statement)).rows as Row[];
  }

  async execute(statement: SqlStatement): Promise<number> {
    return (await this.run(this.pool, statement)).rowCount ?? 0;
  }

  async batch(statements: readonly SqlStatement[]): Promise<unknown[][]> {
    // One statement is atomic by itself.
    const only = statements.length === 1 ? statements[0] : undefined;
    if (only) return [await this.rows(only)];
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const results: unknown[][] = [];
      try {
        for (const statement of statements) results.push((await this.run(client, statement)).rows);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      }
      return results;
    } finally {
      // A connection whose rollback failed is not given back to others.
      client.release(broken);
    }
  }

  private async run(on: pg.Pool | pg.PoolClient, statement: SqlStatement): Promise<pg.QueryResult> {
    const { name, text } = this.statementOf(statement.strings);
    try {
      return await on.query({ name, text, values: statement.values.map(toParameter), types });
    } catch (error) {
      throw adapterError(error);
    }
  }

  private statementOf(strings: TemplateStringsArray): { name: string; text: string } {
    let prepared = this.prepared.get(strings);
    if (prepared === undefined) {
      const text = strings.reduce((joined, part, index) => `${joined}$${index}${part}`);
      prepared = { name: `roundtable_hot_${++this.named}`, text };
      this.prepared.set(strings, prepared);
    }
    return prepared;
  }
}

/** A value as `@prisma/adapter-pg` sends it: a date as UTC text without a zone, the rest as `pg` does. */
function toParameter(value: unknown): unknown {
  if (value instanceof Date) return formatDateTime(value);
  if (value === undefined) return null;
  return value;
}

function formatDateTime(date: Date): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const ms = date.getUTCMilliseconds();
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}` +
    (ms ? `.${String(ms).padStart(3, "0")}` : "")
  );
}

/** A unique violation as the Prisma adapter reports it (what `isUniqueViolation` reads); others as they are. */
function adapterError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && code === "23505") {
    const constraint = (error as { constraint?: string }).constraint;
    const mapped = new DriverAdapterError({
      kind: "UniqueConstraintViolation",
      ...(constraint === undefined ? {} : { constraint: { index: constraint } }),
    });
    mapped.message = `${mapped.message}: ${error.message}`;
    return mapped;
  }
  return error;
}
