import type { AccountingStore, UsageDayRecord, UsageEntry } from "../../world/accounting-store.js";
import type { ApprovalRecord } from "../records.js";
import type { DatabaseClient } from "./database-client.js";
import { isUniqueViolation } from "./prisma-errors.js";
import { toApprovalRecord } from "./record-mappers.js";

/** The {@link AccountingStore} over Prisma (SQLite and PostgreSQL alike). */
export class AccountingQueries implements AccountingStore {
  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {}

  async addUsage(entry: UsageEntry): Promise<void> {
    const increment = {
      calls: { increment: 1 },
      inputTokens: { increment: entry.inputTokens },
      outputTokens: { increment: entry.outputTokens },
      cachedInputTokens: { increment: entry.cachedInputTokens },
      costUsd: { increment: entry.costUsd },
      updatedAt: this.clock(),
    };
    const where = { world_agent_day: { world: entry.world, agent: entry.agent, day: entry.day } };
    const create = { ...entry, calls: 1, updatedAt: this.clock() };
    try {
      await this.db.usageDay.upsert({ where, create, update: increment });
    } catch (error) {
      // Two processes created the day's row at once: the loser adds to the winner's.
      if (!isUniqueViolation(error)) throw error;
      await this.db.usageDay.update({ where, data: increment });
    }
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

  countPersonMessages(platform: string, authorId: string, after: Date, until: Date): Promise<number> {
    return this.db.message.count({
      where: {
        authorId,
        authorKind: "human",
        chatKey: { startsWith: `${platform}:` },
        createdAt: { gt: after, lte: until },
      },
    });
  }

  async listApprovalsSince(since: Date, world?: string): Promise<ApprovalRecord[]> {
    const rows = await this.db.approval.findMany({
      where: { createdAt: { gte: since }, ...(world === undefined ? {} : { world }) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toApprovalRecord);
  }
}
