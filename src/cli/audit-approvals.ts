import type { Store } from "../storage/store.js";

/** One approval as the audit shows it; times are ISO strings (this is also the JSON export). */
export interface AuditedApproval {
  id: string;
  shortId: string;
  world: string;
  chat: string;
  agent: string;
  tool: string;
  /** The arguments exactly as the model sent them (what the card showed). */
  argumentsJson: string;
  requestedBy: { id: string; name?: string };
  reason: string;
  state: string;
  choice?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
  createdAt: string;
  expiresAt: string;
  /** From the request to the decision (or expiry), in whole seconds. */
  waitedSeconds?: number;
  /** The kind of the tool call's result (`ok`, `error`, `denied`, `expired`, `skipped`, ...). */
  resultKind?: string;
  changes: { state: string; by: string; at: string; note?: string }[];
}

/** Every approval created since `since` (in `world`), with its call, requester, decision and result. */
export async function auditApprovals(store: Store, since: Date, world?: string): Promise<AuditedApproval[]> {
  const audited: AuditedApproval[] = [];
  for (const approval of await store.listApprovalsSince(since, world)) {
    const call = await store.getToolCall(approval.toolCallId);
    const result = await store.getToolResult(approval.toolCallId);
    const turn = await store.getTurn(approval.turnId);
    const trigger = turn ? await store.getMessage(turn.triggerMessageId) : undefined;
    const requesterName = trigger?.author.id === approval.requestedFor ? trigger.author.name : undefined;
    const changes = await store.listApprovalChanges(approval.id);
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
    });
  }
  return audited;
}
