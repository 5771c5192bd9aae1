import type { ApprovalChangeRecord, ApprovalRecord } from "../world/records.js";
import type { Store } from "../world/store.js";
import { auditRuleUses } from "./audit-rule-uses.js";
import type { AuditedApproval } from "./audited-approval.js";

export type { AuditedApproval } from "./audited-approval.js";

/** Every approval created since `since` (in `world`), with its call, requester, decision and result. */
export async function auditApprovals(store: Store, since: Date, world?: string): Promise<AuditedApproval[]> {
  const audited: AuditedApproval[] = [];
  const madeRules = new Map(
    (await store.listStoredRules(world === undefined ? {} : { world })).map((rule) => [rule.sourceApprovalId, rule.id]),
  );
  for (const approval of await store.listApprovalsSince(since, world)) {
    const call = await store.getToolCall(approval.toolCallId);
    const result = await store.getToolResult(approval.toolCallId);
    const turn = await store.getTurn(approval.turnId);
    const trigger = turn ? await store.getMessage(turn.triggerMessageId) : undefined;
    const requesterName = trigger?.author.id === approval.requestedFor ? trigger.author.name : undefined;
    const changes = await store.listApprovalChanges(approval.id);
    const copies = await store.listCardCopies(approval.id);
    const decidedBy =
      approval.decidedById !== undefined && approval.decidedById !== "roundtable"
        ? { id: approval.decidedById, name: approval.decidedByName ?? approval.decidedById }
        : undefined;
    audited.push({
      id: approval.id,
      shortId: approval.shortId,
      world: approval.world,
      chat: approval.chatKey,
      agent: approval.agent,
      tool: call?.name ?? "?",
      argumentsJson: call?.argumentsJson ?? "",
      requestedBy: { id: approval.requestedFor, ...(requesterName === undefined ? {} : { name: requesterName }) },
      reason: approval.reason,
      state: approval.state,
      ...(approval.choice === undefined ? {} : { choice: approval.choice }),
      ...(decidedBy === undefined ? {} : { decidedBy }),
      ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt.toISOString() }),
      createdAt: approval.createdAt.toISOString(),
      expiresAt: approval.expiresAt.toISOString(),
      ...(approval.decidedAt === undefined
        ? {}
        : { waitedSeconds: Math.round((approval.decidedAt.getTime() - approval.createdAt.getTime()) / 1000) }),
      ...(result === undefined ? {} : { resultKind: result.kind }),
      changes: changes.map((change) => ({
        state: change.state,
        by: change.actorName,
        at: change.createdAt.toISOString(),
        ...(change.note === undefined ? {} : { note: change.note }),
      })),
      ...createdRuleOf(madeRules.get(approval.id)),
      ...(copies.length === 0
        ? {}
        : {
            copies: copies.map(({ chatKey, kind, state, decidedHere }) => ({
              chat: chatKey,
              kind,
              state,
              decidedHere,
            })),
          }),
      ...decisionDetails(approval, changes),
    });
  }
  // Calls a stored rule allowed have no approval: each is an entry of its own, in time order.
  audited.push(...(await auditRuleUses(store, since, world)));
  return audited.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** A denial's reason and an edit's arguments, where the decision had them. */
function decisionDetails(
  approval: ApprovalRecord,
  changes: readonly ApprovalChangeRecord[],
): Pick<AuditedApproval, "denialReason" | "edit"> {
  const note = approval.state === "denied" ? changes.find((change) => change.state === "denied")?.note : undefined;
  return {
    ...(note === undefined ? {} : { denialReason: note }),
    ...(approval.editedArgumentsJson === undefined
      ? {}
      : {
          edit: {
            by: approval.decidedByName ?? approval.decidedById ?? "?",
            argumentsJson: approval.editedArgumentsJson,
          },
        }),
  };
}

function createdRuleOf(id: string | undefined): { createdRule?: string } {
  return id === undefined ? {} : { createdRule: id };
}
