import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { AccountingQueries } from "../../src/storage/prisma/accounting-queries.js";
import { CombinedStatements } from "../../src/storage/prisma/combined-statements.js";
import { createDatabaseClient, type DatabaseClient } from "../../src/storage/prisma/database-client.js";
import { parseDatabaseUrl } from "../../src/storage/prisma/database-target.js";
import { GraphileJobTable } from "../../src/storage/prisma/graphile-job-table.js";
import { HotQueries } from "../../src/storage/prisma/hot-queries.js";
import { JobTable } from "../../src/storage/prisma/job-table.js";
import { isUniqueViolation } from "../../src/storage/prisma/prisma-errors.js";
import { rawSqlOf } from "../../src/storage/prisma/prisma-raw-sql.js";
import { PrismaStore } from "../../src/storage/prisma/prisma-store.js";
import type { RawSql } from "../../src/storage/prisma/raw-sql.js";
import { StepQueries } from "../../src/storage/prisma/step-queries.js";
import type { NewMessage } from "../../src/world/records.js";
import { createPostgresDatabase, quietLogger } from "./test-databases.js";

/** One of the two twin databases: its client, and the store's parts on it. */
export interface Side {
  db: DatabaseClient;
  raw: RawSql;
  store: PrismaStore;
  accounting: AccountingQueries;
  jobs: JobTable;
  graphile: GraphileJobTable;
  /** The PostgreSQL side of the combined statements (`combined-statements.ts`), on this side's way. */
  combined: CombinedStatements;
  count: { value: number };
  url: string;
  drop(): Promise<void>;
}

/**
 * Twin databases for each test of the calling suite (inside `describePostgres`): `direct()`
 * sends the hot statements on `pg` (`PostgresRawSql`), `prisma()` through Prisma's `$queryRaw`,
 * with the same clock. `same(call)` makes the call on both, in order, and expects the same
 * answer or the same kind of failure.
 */
export function twinDatabases(serverUrl: () => string) {
  let direct: Side;
  let prisma: Side;
  // A zone other than UTC, so that a date read or written in the process's zone would show.
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = "America/Sao_Paulo";
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  /** A clock that moves 1 ms at each reading, the same on both sides. */
  function steppingClock(): () => Date {
    let at = Date.parse("2026-03-04T05:06:07.089Z");
    return () => new Date(at++);
  }

  async function side(throughPrisma: boolean): Promise<Side> {
    const database = await createPostgresDatabase(serverUrl());
    await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
    const count = { value: 0 };
    let db: DatabaseClient;
    if (throughPrisma) {
      // Prisma's client as it was before: no way around it is set, so rawSqlOf gives $queryRaw.
      const [{ PrismaPg }, { PrismaClient }] = await Promise.all([
        import("@prisma/adapter-pg"),
        import("../../src/storage/prisma/generated/postgresql/index.js"),
      ]);
      db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) }) as unknown as DatabaseClient;
    } else {
      db = await createDatabaseClient(parseDatabaseUrl(database.url), { statements: count });
    }
    const clock = steppingClock();
    return {
      db,
      raw: rawSqlOf(db),
      store: new PrismaStore(db, clock),
      accounting: new AccountingQueries(db, clock),
      jobs: new JobTable(db),
      graphile: new GraphileJobTable(db),
      combined: new CombinedStatements(
        rawSqlOf(db),
        clock,
        new HotQueries(rawSqlOf(db), clock),
        new StepQueries(rawSqlOf(db), clock),
        "postgresql",
      ),
      count,
      url: database.url,
      async drop() {
        await db.$disconnect();
        await database.drop();
      },
    };
  }

  beforeEach(async () => {
    direct = await side(false);
    prisma = await side(true);
  });
  afterEach(async () => {
    await direct.drop();
    await prisma.drop();
  });

  /** The same call on both sides, in order: the same answer, or the same kind of failure. */
  async function same<T>(call: (side: Side) => Promise<T>): Promise<T> {
    const settle = (side: Side) =>
      call(side).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    const mine = await settle(direct);
    const theirs = await settle(prisma);
    if ("error" in theirs) {
      expect("error" in mine, `direct answered ${JSON.stringify(mine)}; Prisma threw ${String(theirs.error)}`).toBe(
        true,
      );
      expect(isUniqueViolation("error" in mine ? mine.error : undefined)).toBe(isUniqueViolation(theirs.error));
      throw theirs.error;
    }
    if ("error" in mine) throw mine.error;
    expect(mine.value).toEqual(theirs.value);
    return mine.value;
  }

  const message = (id: string, chatKey: string, overrides: Partial<NewMessage> = {}): NewMessage => ({
    id,
    chatKey,
    author: { kind: "human", id: "u1", name: "Ana", handle: "ana" },
    text: `text of ${id}`,
    raw: { update_id: 1, nested: { at: "2026-01-01" } },
    ...overrides,
  });

  return { direct: () => direct, prisma: () => prisma, same, message };
}
