import type { AccountingStore, DayCaps, UsageChange, UsageDayRecord } from "../../world/stores/accounting-store.js";
import type { ApprovalRecord } from "../../world/records.js";
import type { DatabaseClient } from "./database-client.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { advisoryKey } from "./postgres-singleton-lock.js";
import { concatStatements, type RawSql, type SqlStatement, sql } from "./raw-sql.js";
import { toApprovalRecord } from "./record-mappers.js";

/** The {@link AccountingStore} over Prisma (SQLite and PostgreSQL alike). */
export class AccountingQueries implements AccountingStore {
  private readonly raw: RawSql;

  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
    private readonly dialect: "sqlite" | "postgresql" = "sqlite",
  ) {
    this.raw = rawSqlOf(db);
  }

  /** One statement: the day's row is created or added to (two processes at once cannot both create it). */
  async addUsage(change: UsageChange): Promise<void> {
    await this.raw.execute(this.upsertUsage(change));
  }

  /**
   * The day's row is added to only when the world's day, with the change, stays within the
   * caps; one statement, one round trip. Without caps it is the plain upsert of `addUsage`.
   * On SQLite the condition reads the world's rows of the day in the upsert itself (one writer
   * at a time makes it atomic). On PostgreSQL it is `roundtable_reserve_usage` (migration
   * 0010): a transaction-scoped advisory lock on the world's day, then the sum and the upsert,
   * each statement of that VOLATILE function with a fresh snapshot, so a concurrent
   * reservation reads this one's row once it holds the lock.
   */
  async reserveUsage(change: UsageChange, caps: DayCaps): Promise<boolean> {
    if (caps.tokens === undefined && caps.costUsd === undefined) {
      await this.addUsage(change);
      return true;
    }
    const noCap = Number.MAX_SAFE_INTEGER;
    const tokenCap = caps.tokens ?? noCap;
    const costCap = caps.costUsd ?? noCap;
    if (this.dialect === "postgresql") {
      const lockKey = advisoryKey(`usage:${change.world}:${change.day}`);
      const rows = await this.raw.rows<{ reserved: boolean }>(sql`
        SELECT "roundtable_reserve_usage"(CAST(${lockKey} AS BIGINT), CAST(${change.world} AS TEXT),
          CAST(${change.agent} AS TEXT), CAST(${change.day} AS TEXT), CAST(${change.calls} AS INTEGER),
          CAST(${change.estimatedCalls} AS INTEGER), CAST(${change.inputTokens} AS INTEGER),
          CAST(${change.outputTokens} AS INTEGER), CAST(${change.cachedInputTokens} AS INTEGER),
          CAST(${change.costUsd} AS DOUBLE PRECISION), CAST(${this.clock()} AS TIMESTAMP(3)),
          CAST(${tokenCap} AS BIGINT), CAST(${costCap} AS DOUBLE PRECISION)) AS reserved`);
      return rows[0]?.reserved === true;
    }
    const tokens = change.inputTokens + change.outputTokens;
    const guarded = this.upsertUsage(
      change,
      sql`WHERE (SELECT COALESCE(SUM("inputTokens" + "outputTokens"), 0) FROM "UsageDay"
          WHERE "world" = ${change.world} AND "day" = ${change.day}) + CAST(${tokens} AS BIGINT) <= CAST(${tokenCap} AS BIGINT)
        AND (SELECT COALESCE(SUM("costUsd"), 0) FROM "UsageDay"
          WHERE "world" = ${change.world} AND "day" = ${change.day}) + CAST(${change.costUsd} AS DOUBLE PRECISION)
          <= CAST(${costCap} AS DOUBLE PRECISION)`,
    );
    return (await this.raw.rows(concatStatements([guarded, sql` RETURNING "calls"`]))).length > 0;
  }

  /** Insert-or-add of a change; `condition` (a `WHERE …`) makes it conditional. */
  private upsertUsage(change: UsageChange, condition: SqlStatement = sql`WHERE 1 = 1`): SqlStatement {
    const head = sql`
      INSERT INTO "UsageDay" ("world", "agent", "day", "calls", "estimatedCalls", "inputTokens", "outputTokens",
        "cachedInputTokens", "costUsd", "updatedAt")
      SELECT CAST(${change.world} AS TEXT), CAST(${change.agent} AS TEXT), CAST(${change.day} AS TEXT),
        CAST(${change.calls} AS INTEGER), CAST(${change.estimatedCalls} AS INTEGER), CAST(${change.inputTokens} AS INTEGER),
        CAST(${change.outputTokens} AS INTEGER), CAST(${change.cachedInputTokens} AS INTEGER),
        CAST(${change.costUsd} AS DOUBLE PRECISION), ${this.clock()} `;
    const tail = sql`
      ON CONFLICT ("world", "agent", "day") DO UPDATE SET
        "calls" = "UsageDay"."calls" + excluded."calls",
        "estimatedCalls" = "UsageDay"."estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = "UsageDay"."inputTokens" + excluded."inputTokens",
        "outputTokens" = "UsageDay"."outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = "UsageDay"."cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = "UsageDay"."costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt"`;
    return concatStatements([head, condition, tail]);
  }

  async countPersonMessages(
    platform: string,
    authorId: string,
    after: Date,
    until: Date,
    upToMessageId?: string,
  ): Promise<number> {
    // The chat keys of a platform start with `<platform>:` (LIKE, as the model API's startsWith).
    const pattern = `${platform.replace(/[\\%_]/g, (character) => `\\${character}`)}:%`;
    // Messages stored in the same millisecond as `until` count only up to the given one (by seq).
    const upTo =
      upToMessageId === undefined
        ? sql`"createdAt" <= ${until}`
        : sql`("createdAt" < ${until} OR ("createdAt" = ${until}
            AND "seq" <= (SELECT "seq" FROM "Message" WHERE "id" = ${upToMessageId})))`;
    const rows = await this.raw.rows<{ count: number | bigint }>(
      concatStatements([
        sql`SELECT COUNT(*) AS count FROM "Message"
      WHERE "authorId" = ${authorId} AND "authorKind" = 'human' AND "createdAt" > ${after} AND `,
        upTo,
        sql` AND "chatKey" LIKE ${pattern} ESCAPE '\\'`,
      ]),
    );
    return Number(rows[0]?.count ?? 0);
  }

  async listUsage(filter: { world?: string; fromDay?: string }): Promise<UsageDayRecord[]> {
    const rows = await this.db.usageDay.findMany({
      where: {
        ...(filter.world === undefined ? {} : { world: filter.world }),
        ...(filter.fromDay === undefined ? {} : { day: { gte: filter.fromDay } }),
      },
      orderBy: [{ day: "asc" }, { world: "asc" }, { agent: "asc" }],
    });
    return rows.map((row) => ({
      world: row.world,
      agent: row.agent,
      day: row.day,
      calls: row.calls,
      estimatedCalls: row.estimatedCalls,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      cachedInputTokens: row.cachedInputTokens,
      costUsd: row.costUsd,
    }));
  }

  async listApprovalsSince(since: Date, world?: string): Promise<ApprovalRecord[]> {
    const rows = await this.db.approval.findMany({
      where: { createdAt: { gte: since }, ...(world === undefined ? {} : { world }) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toApprovalRecord);
  }
}
