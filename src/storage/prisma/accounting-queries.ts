import type { AccountingStore, UsageDayRecord, UsageEntry } from "../../world/accounting-store.js";
import type { ApprovalRecord } from "../records.js";
import type { DatabaseClient } from "./database-client.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { type RawSql, sql } from "./raw-sql.js";
import { toApprovalRecord } from "./record-mappers.js";

/** The {@link AccountingStore} over Prisma (SQLite and PostgreSQL alike). */
export class AccountingQueries implements AccountingStore {
  private readonly raw: RawSql;

  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {
    this.raw = rawSqlOf(db);
  }

  /** One statement: the day's row is created or added to (two processes at once cannot both create it). */
  async addUsage(entry: UsageEntry): Promise<void> {
    const now = this.clock();
    await this.raw.execute(sql`
      INSERT INTO "UsageDay" ("world", "agent", "day", "calls", "inputTokens", "outputTokens", "cachedInputTokens",
        "costUsd", "updatedAt")
      VALUES (${entry.world}, ${entry.agent}, ${entry.day}, 1, ${entry.inputTokens}, ${entry.outputTokens},
        ${entry.cachedInputTokens}, ${entry.costUsd}, ${now})
      ON CONFLICT ("world", "agent", "day") DO UPDATE SET
        "calls" = "UsageDay"."calls" + 1,
        "inputTokens" = "UsageDay"."inputTokens" + excluded."inputTokens",
        "outputTokens" = "UsageDay"."outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = "UsageDay"."cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = "UsageDay"."costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt"`);
  }

  async countPersonMessages(platform: string, authorId: string, after: Date, until: Date): Promise<number> {
    // The chat keys of a platform start with `<platform>:` (LIKE, as the model API's startsWith).
    const pattern = `${platform.replace(/[\\%_]/g, (character) => `\\${character}`)}:%`;
    const rows = await this.raw.rows<{ count: number | bigint }>(sql`
      SELECT COUNT(*) AS count FROM "Message"
      WHERE "authorId" = ${authorId} AND "authorKind" = 'human' AND "createdAt" > ${after} AND "createdAt" <= ${until}
        AND "chatKey" LIKE ${pattern} ESCAPE '\\'`);
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
