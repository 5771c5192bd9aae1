// The BudgetStore over Prisma and raw SQL, SQLite and PostgreSQL alike (migration 0012).
import type {
  BucketCap,
  BucketRecord,
  BucketUse,
  BudgetAlertKey,
  BudgetBucketKey,
  BudgetCharge,
  BudgetRaise,
  BudgetScope,
  BudgetStore,
} from "../../world/stores/budget-store.js";
import type { DatabaseClient } from "./database-client.js";
import { advisoryKey } from "./postgres-singleton-lock.js";
import { isUniqueViolation } from "./prisma-errors.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { concatStatements, type RawSql, type SqlStatement, sql } from "./raw-sql.js";

/** The eight buckets a charge goes to, always in this order (the same lock order in every process). */
export function bucketsOf(change: BudgetCharge): BudgetBucketKey[] {
  const keys: BudgetBucketKey[] = [];
  const subjects: [BudgetScope, string][] = [
    ["world", ""],
    ["agent", change.agent],
    ["chat", change.chatKey],
    ["person", change.person],
  ];
  for (const [scope, subject] of subjects) {
    keys.push({ scope, subject, period: change.day }, { scope, subject, period: change.month });
  }
  return keys;
}

interface BucketRow {
  scope: string;
  subject: string;
  period: string;
  tokens: number | bigint;
  costUsd: number;
  raisedTokens: number | bigint;
  raisedCostUsd: number;
}

function toUse(row: BucketRow): BucketUse {
  return {
    scope: row.scope as BudgetScope,
    subject: row.subject,
    period: row.period,
    tokens: Number(row.tokens),
    costUsd: Number(row.costUsd),
    raisedTokens: Number(row.raisedTokens),
    raisedCostUsd: Number(row.raisedCostUsd),
  };
}

function toRecord(row: Omit<BucketRecord, "tokens" | "scope"> & { scope: string }): BucketRecord {
  return {
    ...toUse({ ...row, tokens: row.inputTokens + row.outputTokens }),
    world: row.world,
    calls: row.calls,
    estimatedCalls: row.estimatedCalls,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cachedInputTokens: row.cachedInputTokens,
  };
}

const sameKey = (a: BudgetBucketKey, b: BudgetBucketKey) =>
  a.scope === b.scope && a.subject === b.subject && a.period === b.period;

/** The {@link BudgetStore} over Prisma (SQLite and PostgreSQL alike). */
export class BudgetQueries implements BudgetStore {
  private readonly raw: RawSql;

  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
    private readonly dialect: "sqlite" | "postgresql" = "sqlite",
  ) {
    this.raw = rawSqlOf(db);
  }

  /**
   * PostgreSQL: `roundtable_charge_budget` (migration 0012), one statement under the world
   * day's advisory lock. SQLite: one upsert of the buckets guarded by the caps' condition (one
   * writer at a time makes it atomic; SQLite reads the condition before it writes a row, as
   * the statement reads the table it inserts into).
   */
  async chargeBudget(change: BudgetCharge, caps: readonly BucketCap[]): Promise<BucketUse[] | undefined> {
    const keys = bucketsOf(change);
    if (this.dialect === "postgresql") {
      const capOf = (key: BudgetBucketKey) => caps.find((cap) => sameKey(cap, key));
      const lockKey = advisoryKey(`usage:${change.world}:${change.day}`);
      const rows = await this.raw.rows<BucketRow>(sql`
        SELECT * FROM "roundtable_charge_budget"(CAST(${lockKey} AS BIGINT), CAST(${change.world} AS TEXT),
          CAST(${change.agent} AS TEXT), CAST(${change.day} AS TEXT), CAST(${change.calls} AS INTEGER),
          CAST(${change.estimatedCalls} AS INTEGER), CAST(${change.inputTokens} AS INTEGER),
          CAST(${change.outputTokens} AS INTEGER), CAST(${change.cachedInputTokens} AS INTEGER),
          CAST(${change.costUsd} AS DOUBLE PRECISION), CAST(${this.clock()} AS TIMESTAMP(3)),
          CAST(${keys.map((key) => key.scope)} AS TEXT[]), CAST(${keys.map((key) => key.subject)} AS TEXT[]),
          CAST(${keys.map((key) => key.period)} AS TEXT[]),
          CAST(${keys.map((key) => capOf(key)?.tokens ?? null)} AS BIGINT[]),
          CAST(${keys.map((key) => capOf(key)?.costUsd ?? null)} AS DOUBLE PRECISION[]))`);
      return rows.length === 0 ? undefined : rows.map(toUse);
    }
    // The agent's day in "UsageDay" follows its day bucket by a trigger (migration 0012).
    const rows = await this.raw.rows<BucketRow>(
      concatStatements([this.bucketUpsert(change, keys), this.withinCaps(change, caps), bucketConflict]),
    );
    return rows.length === 0 ? undefined : rows.map(toUse);
  }

  /** `WHERE …`: every capped bucket, with the change, within its cap plus its raise (SQLite). */
  private withinCaps(change: BudgetCharge, caps: readonly BucketCap[]): SqlStatement {
    const tokens = change.inputTokens + change.outputTokens;
    const parts: SqlStatement[] = [sql` WHERE 1 = 1`];
    for (const cap of caps) {
      const where = sql` FROM "UsageBucket" WHERE "world" = ${change.world} AND "scope" = ${cap.scope}
        AND "subject" = ${cap.subject} AND "period" = ${cap.period})`;
      if (cap.tokens !== undefined) {
        parts.push(sql` AND (SELECT COALESCE(MAX("inputTokens" + "outputTokens" - "raisedTokens"), 0)`, where);
        parts.push(sql` + CAST(${tokens} AS INTEGER) <= CAST(${cap.tokens} AS INTEGER)`);
      }
      if (cap.costUsd !== undefined) {
        parts.push(sql` AND (SELECT COALESCE(MAX("costUsd" - "raisedCostUsd"), 0)`, where);
        parts.push(sql` + CAST(${change.costUsd} AS REAL) <= CAST(${cap.costUsd} AS REAL)`);
      }
    }
    return concatStatements(parts);
  }

  private bucketUpsert(change: BudgetCharge, keys: readonly BudgetBucketKey[]): SqlStatement {
    const values = keys.map((key, index) =>
      index === 0
        ? sql`VALUES (${key.scope}, ${key.subject}, ${key.period})`
        : sql`, (${key.scope}, ${key.subject}, ${key.period})`,
    );
    return concatStatements([
      sql`
      INSERT INTO "UsageBucket" ("world", "scope", "subject", "period", "calls", "estimatedCalls", "inputTokens",
        "outputTokens", "cachedInputTokens", "costUsd", "updatedAt")
      SELECT ${change.world}, "column1", "column2", "column3", ${change.calls}, ${change.estimatedCalls},
        ${change.inputTokens}, ${change.outputTokens}, ${change.cachedInputTokens}, ${change.costUsd}, ${this.clock()}
      FROM (`,
      ...values,
      sql`)`,
    ]);
  }

  async readBuckets(world: string, keys: readonly BudgetBucketKey[]): Promise<BucketRecord[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.usageBucket.findMany({
      where: { world, OR: keys.map((key) => ({ scope: key.scope, subject: key.subject, period: key.period })) },
    });
    return rows.map(toRecord);
  }

  async listBuckets(filter: { world?: string; scope: BudgetScope; period: string }): Promise<BucketRecord[]> {
    const rows = await this.db.usageBucket.findMany({
      where: {
        scope: filter.scope,
        period: filter.period,
        ...(filter.world === undefined ? {} : { world: filter.world }),
      },
      orderBy: [{ world: "asc" }, { subject: "asc" }],
    });
    return rows.map(toRecord);
  }

  async raiseBudget(raise: BudgetRaise): Promise<boolean> {
    const key = { world: raise.world, scope: raise.scope, subject: raise.subject, period: raise.period };
    const added =
      raise.unit === "tokens" ? { raisedTokens: Math.round(raise.amount) } : { raisedCostUsd: raise.amount };
    try {
      await this.db.$transaction([
        this.db.budgetRaise.create({
          data: {
            approvalId: raise.approvalId,
            world: raise.world,
            cap: raise.cap,
            subject: raise.subject,
            period: raise.period,
            amount: raise.amount,
            decidedBy: raise.decidedBy,
            createdAt: this.clock(),
          },
        }),
        this.db.usageBucket.upsert({
          where: { world_scope_subject_period: key },
          create: { ...key, ...added, updatedAt: this.clock() },
          update:
            raise.unit === "tokens"
              ? { raisedTokens: { increment: Math.round(raise.amount) } }
              : { raisedCostUsd: { increment: raise.amount } },
        }),
      ]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async recordBudgetAlert(alert: BudgetAlertKey): Promise<boolean> {
    const added = await this.raw.execute(sql`
      INSERT INTO "BudgetAlert" ("world", "cap", "subject", "period", "threshold", "createdAt")
      VALUES (${alert.world}, ${alert.cap}, ${alert.subject}, ${alert.period}, ${alert.threshold}, ${this.clock()})
      ON CONFLICT DO NOTHING`);
    return added > 0;
  }
}

const bucketConflict = sql`
      ON CONFLICT ("world", "scope", "subject", "period") DO UPDATE SET
        "calls" = "UsageBucket"."calls" + excluded."calls",
        "estimatedCalls" = "UsageBucket"."estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = "UsageBucket"."inputTokens" + excluded."inputTokens",
        "outputTokens" = "UsageBucket"."outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = "UsageBucket"."cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = "UsageBucket"."costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt"
      RETURNING "scope", "subject", "period", "inputTokens" + "outputTokens" AS "tokens", "costUsd",
        "raisedTokens", "raisedCostUsd"`;
