import type {
  NewStoredRule,
  StoredRuleKey,
  StoredRuleRecord,
  StoredRuleStore,
  StoredRuleUse,
} from "../../world/policy/stored-rules.js";
import type { DatabaseClient } from "./database-client.js";

/** What a transaction's client is: the same model API. */
type Transaction = Parameters<Parameters<DatabaseClient["$transaction"]>[0]>[0];

interface StoredRuleRow {
  id: string;
  world: string;
  agent: string;
  tool: string;
  argsHash: string;
  argumentsJson: string;
  authorId: string;
  authorName: string;
  authorPlatform: string;
  sourceApprovalId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedBy: string | null;
  useCount: number;
  lastUsedAt: Date | null;
}

function toRecord(row: StoredRuleRow): StoredRuleRecord {
  return {
    id: row.id,
    world: row.world,
    agent: row.agent,
    tool: row.tool,
    argsHash: row.argsHash,
    argumentsJson: row.argumentsJson,
    author: { id: row.authorId, name: row.authorName, platform: row.authorPlatform },
    sourceApprovalId: row.sourceApprovalId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    ...(row.revokedAt === null ? {} : { revokedAt: row.revokedAt }),
    ...(row.revokedBy === null ? {} : { revokedBy: row.revokedBy }),
    useCount: row.useCount,
    ...(row.lastUsedAt === null ? {} : { lastUsedAt: row.lastUsedAt }),
  };
}

/** Store a new rule inside a transaction (the *Always allow* decision's own). */
export async function createStoredRuleIn(tx: Transaction, rule: NewStoredRule): Promise<void> {
  await tx.storedRule.create({
    data: {
      id: rule.id,
      world: rule.world,
      agent: rule.agent,
      tool: rule.tool,
      argsHash: rule.argsHash,
      argumentsJson: rule.argumentsJson,
      authorId: rule.author.id,
      authorName: rule.author.name,
      authorPlatform: rule.author.platform,
      sourceApprovalId: rule.sourceApprovalId,
      createdAt: rule.createdAt,
      expiresAt: rule.expiresAt,
    },
  });
}

/** The {@link StoredRuleStore} over Prisma (SQLite and PostgreSQL alike). */
export class StoredRuleQueries implements StoredRuleStore {
  constructor(private readonly db: DatabaseClient) {}

  async findActiveStoredRule(key: StoredRuleKey, now: Date): Promise<StoredRuleRecord | undefined> {
    const row = await this.db.storedRule.findFirst({
      where: { ...key, revokedAt: null, expiresAt: { gt: now } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return row ? toRecord(row) : undefined;
  }

  async useStoredRule(use: StoredRuleUse): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      // Checked first, not caught: a unique violation would abort the transaction on PostgreSQL.
      const earlier = await tx.storedRuleUse.findUnique({ where: { toolCallId: use.toolCallId } });
      if (earlier) return true;
      const { count } = await tx.storedRule.updateMany({
        where: { id: use.ruleId, revokedAt: null, expiresAt: { gt: use.usedAt } },
        data: { useCount: { increment: 1 }, lastUsedAt: use.usedAt },
      });
      if (count !== 1) return false;
      await tx.storedRuleUse.create({ data: use });
      return true;
    });
  }

  async storedRuleUseOf(toolCallId: string): Promise<StoredRuleUse | undefined> {
    const row = await this.db.storedRuleUse.findUnique({ where: { toolCallId } });
    return row ?? undefined;
  }

  async listStoredRuleUses(filter: { since: Date; world?: string }): Promise<StoredRuleUse[]> {
    return this.db.storedRuleUse.findMany({
      where: { usedAt: { gte: filter.since }, ...(filter.world === undefined ? {} : { world: filter.world }) },
      orderBy: [{ usedAt: "asc" }, { toolCallId: "asc" }],
    });
  }

  async getStoredRule(id: string): Promise<StoredRuleRecord | undefined> {
    const row = await this.db.storedRule.findUnique({ where: { id } });
    return row ? toRecord(row) : undefined;
  }

  async listStoredRules(filter: { world?: string }): Promise<StoredRuleRecord[]> {
    const rows = await this.db.storedRule.findMany({
      where: filter.world === undefined ? {} : { world: filter.world },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toRecord);
  }

  async revokeStoredRule(
    id: string,
    by: string,
    at: Date,
  ): Promise<{ revoked: boolean; rule: StoredRuleRecord } | undefined> {
    const { count } = await this.db.storedRule.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: at, revokedBy: by },
    });
    const rule = await this.getStoredRule(id);
    return rule ? { revoked: count === 1, rule } : undefined;
  }
}
