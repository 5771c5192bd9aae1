import type { DatabaseClient } from "./database-client.js";
import { type RawSql, rawSqlSetFor, type SqlStatement } from "./raw-sql.js";

/** Through Prisma's client (PostgreSQL, and any client not opened by `createDatabaseClient`). */
export class PrismaRawSql implements RawSql {
  constructor(private readonly db: DatabaseClient) {}

  rows<Row>(statement: SqlStatement): Promise<Row[]> {
    return this.db.$queryRaw<Row[]>(statement.strings, ...statement.values);
  }

  execute(statement: SqlStatement): Promise<number> {
    return this.db.$executeRaw(statement.strings, ...statement.values);
  }

  batch(statements: readonly SqlStatement[]): Promise<unknown[][]> {
    return this.db.$transaction(
      statements.map((statement) => this.db.$queryRaw<unknown[]>(statement.strings, ...statement.values)),
    );
  }
}

/** Where `db`'s hot statements go: the way set for it (SQLite), else Prisma's client. */
export function rawSqlOf(db: DatabaseClient): RawSql {
  return rawSqlSetFor(db) ?? new PrismaRawSql(db);
}
