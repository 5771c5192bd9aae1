import { randomUUID } from "node:crypto";
import { StorageError } from "../../errors/roundtable-error.js";
import type {
  ApprovalChangeRecord,
  ApprovalDecision,
  ApprovalRecord,
  DecideResult,
  NewApproval,
  SessionGrantKey,
} from "../../world/records.js";
import type { DatabaseClient } from "./database-client.js";
import { conflictOr, isUniqueViolation } from "./prisma-errors.js";
import { toApprovalChangeRecord, toApprovalRecord } from "./record-mappers.js";
import { createStoredRuleIn } from "./stored-rule-queries.js";
import { recordDeniedCallIn } from "./denied-call-queries.js";

/** Approvals, their audit trail and session grants over Prisma (SQLite and PostgreSQL alike). */
export class ApprovalQueries {
  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {}

  async createApproval(approval: NewApproval): Promise<ApprovalRecord> {
    try {
      const row = await this.db.approval.create({
        data: {
          id: approval.id,
          shortId: approval.shortId,
          chatKey: approval.chatKey,
          world: approval.world,
          agent: approval.agent,
          turnId: approval.turnId,
          toolCallId: approval.toolCallId,
          state: "pending",
          requestedFor: approval.requestedFor,
          reason: approval.reason,
          expiresAt: approval.expiresAt,
          createdAt: this.clock(),
        },
      });
      return toApprovalRecord(row);
    } catch (error) {
      throw conflictOr(
        error,
        `an approval with id ${approval.id}, short id ${approval.shortId} or this tool call exists`,
      );
    }
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db.approval.findUnique({ where: { id } });
    return row ? toApprovalRecord(row) : undefined;
  }

  async getApprovalByShortId(chatKey: string, shortId: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db.approval.findUnique({ where: { chatKey_shortId: { chatKey, shortId } } });
    return row ? toApprovalRecord(row) : undefined;
  }

  async listApprovals(filter: {
    chatKey?: string;
    chatKeyPrefix?: string;
    turnId?: string;
    states?: ApprovalRecord["state"][];
  }): Promise<ApprovalRecord[]> {
    const rows = await this.db.approval.findMany({
      where: {
        ...(filter.chatKey === undefined ? {} : { chatKey: filter.chatKey }),
        ...(filter.chatKeyPrefix === undefined ? {} : { AND: [{ chatKey: { startsWith: filter.chatKeyPrefix } }] }),
        ...(filter.turnId === undefined ? {} : { turnId: filter.turnId }),
        ...(filter.states === undefined ? {} : { state: { in: filter.states } }),
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toApprovalRecord);
  }

  async decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult> {
    return this.db.$transaction(async (tx) => {
      // The condition on `pending` is the race: whoever's update matches first wins.
      const { count } = await tx.approval.updateMany({
        where: { id, state: "pending" },
        data: {
          state: decision.state,
          choice: decision.choice ?? null,
          decidedById: decision.actorId,
          decidedByName: decision.actorName,
          decidedAt: decision.at,
          ...(decision.editedArgumentsJson === undefined ? {} : { editedArgumentsJson: decision.editedArgumentsJson }),
        },
      });
      if (count === 1) {
        await tx.approvalChange.create({
          data: {
            approvalId: id,
            state: decision.state,
            actorId: decision.actorId,
            actorName: decision.actorName,
            note: decision.note ?? null,
            createdAt: decision.at,
          },
        });
        if (decision.sessionGrant) {
          // An upsert, not a create: a unique violation would abort the whole transaction on PostgreSQL.
          await tx.sessionGrant.upsert({
            where: { chatKey_agent_tool_argsHash_sessionEpoch: decision.sessionGrant },
            create: { id: randomUUID(), ...decision.sessionGrant, grantedBy: decision.actorId, createdAt: decision.at },
            update: {},
          });
        }
        if (decision.storedRule) await createStoredRuleIn(tx, decision.storedRule);
        if (decision.deniedCall) await recordDeniedCallIn(tx, decision.deniedCall);
      }
      const row = await tx.approval.findUnique({ where: { id } });
      if (!row) throw new StorageError("approval.unknown", `approval ${id} does not exist`);
      return { won: count === 1, approval: toApprovalRecord(row) };
    });
  }

  async listApprovalChanges(approvalId: string): Promise<ApprovalChangeRecord[]> {
    const rows = await this.db.approvalChange.findMany({ where: { approvalId }, orderBy: { seq: "asc" } });
    return rows.map(toApprovalChangeRecord);
  }

  // session grants

  async addSessionGrant(key: SessionGrantKey, grantedBy: string): Promise<void> {
    try {
      await this.db.sessionGrant.create({ data: { id: randomUUID(), ...key, grantedBy, createdAt: this.clock() } });
    } catch (error) {
      // Granted already (a duplicate click): the grant holds either way.
      if (!isUniqueViolation(error)) throw error;
    }
  }

  async hasSessionGrant(key: SessionGrantKey): Promise<boolean> {
    const row = await this.db.sessionGrant.findUnique({
      where: { chatKey_agent_tool_argsHash_sessionEpoch: key },
      select: { id: true },
    });
    return row !== null;
  }
}
