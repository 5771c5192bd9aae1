import { randomUUID } from "node:crypto";
import type { DeniedCallKey, DeniedCallRecord } from "../../world/stores/denials-and-edits.js";
import type { DatabaseClient } from "./database-client.js";

type Transaction = Parameters<Parameters<DatabaseClient["$transaction"]>[0]>[0];

/** Sticky denials (docs/approvals.md, "Deny with a reason") over Prisma, SQLite and PostgreSQL alike. */
export class DeniedCallQueries {
  constructor(private readonly db: DatabaseClient) {}

  async findDeniedCall(key: DeniedCallKey): Promise<DeniedCallRecord | undefined> {
    const row = await this.db.deniedCall.findUnique({ where: { chatKey_agent_tool_argsHash_sessionEpoch: key } });
    if (!row) return undefined;
    return {
      chatKey: row.chatKey,
      agent: row.agent,
      tool: row.tool,
      argsHash: row.argsHash,
      sessionEpoch: row.sessionEpoch,
      approvalId: row.approvalId,
      deniedBy: { id: row.deniedById, name: row.deniedByName },
      ...(row.reason === null ? {} : { reason: row.reason }),
      createdAt: row.createdAt,
    };
  }
}

/**
 * Record a denial inside its decision's transaction. The first denial of a call in a session is
 * kept (an upsert, not a create: a unique violation would abort the transaction on PostgreSQL).
 */
export async function recordDeniedCallIn(tx: Transaction, denial: DeniedCallRecord): Promise<void> {
  const key: DeniedCallKey = {
    chatKey: denial.chatKey,
    agent: denial.agent,
    tool: denial.tool,
    argsHash: denial.argsHash,
    sessionEpoch: denial.sessionEpoch,
  };
  await tx.deniedCall.upsert({
    where: { chatKey_agent_tool_argsHash_sessionEpoch: key },
    create: {
      id: randomUUID(),
      ...key,
      approvalId: denial.approvalId,
      deniedById: denial.deniedBy.id,
      deniedByName: denial.deniedBy.name,
      reason: denial.reason ?? null,
      createdAt: denial.createdAt,
    },
    update: {},
  });
}
