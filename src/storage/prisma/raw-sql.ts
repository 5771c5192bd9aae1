/** One SQL statement as a tagged template gives it: the text around the values, and the values. */
export interface SqlStatement {
  readonly strings: TemplateStringsArray;
  readonly values: readonly unknown[];
}

/**
 * `sql\`SELECT … WHERE "id" = ${id}\``: a statement whose values are sent as parameters, never
 * spliced into its text. Written once for SQLite and PostgreSQL: quoted identifiers,
 * `RETURNING`, parameters only.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlStatement {
  return { strings, values };
}

/** Statements written one after the other, as one statement (their values kept in order). */
export function concatStatements(parts: readonly SqlStatement[]): SqlStatement {
  const strings: string[] = [];
  const values: unknown[] = [];
  for (const part of parts) {
    part.strings.forEach((text, index) => {
      if (index === 0 && strings.length > 0) strings[strings.length - 1] += text;
      else strings.push(text);
    });
    values.push(...part.values);
  }
  return { strings: Object.assign(strings, { raw: [...strings] }) as unknown as TemplateStringsArray, values };
}

/**
 * Where the statements every message runs go (`HotQueries`, `StepQueries`, the Job table). Rows
 * come back keyed by column and typed as Prisma's `$queryRaw` types them (dates as `Date`), so
 * the same mappers read them whichever way they came. A unique violation is thrown so that
 * `isUniqueViolation` recognises it.
 */
export interface RawSql {
  /** The rows a statement returns (none for a write without `RETURNING`). */
  rows<Row>(statement: SqlStatement): Promise<Row[]>;
  /** How many rows a write changed. */
  execute(statement: SqlStatement): Promise<number>;
  /** The statements in one transaction, all or nothing; each statement's rows, in order. */
  batch(statements: readonly SqlStatement[]): Promise<unknown[][]>;
}

/** The faster way a client's hot statements can take (set by `createDatabaseClient` on SQLite). */
const direct = new WeakMap<object, RawSql>();

/** Send a database client's hot statements through `raw` instead of Prisma's client. */
export function useRawSql(client: object, raw: RawSql): void {
  direct.set(client, raw);
}

/** The way set for a client by {@link useRawSql}, if any (`rawSqlOf` falls back to Prisma's client). */
export function rawSqlSetFor(client: object): RawSql | undefined {
  return direct.get(client);
}
