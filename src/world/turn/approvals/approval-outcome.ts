import { RoundtableError } from "../../../errors/roundtable-error.js";
import type { ApprovalRecord } from "../../records.js";
import { outcomePlaces } from "../../approvals/route-card.js";
import type { Outbox } from "../../outbox.js";
import type { WorldContext } from "../../world-context.js";
import type { ApprovalOutcome } from "./approval-types.js";

/** What a card shows once an approval is closed, from the stored (decided) approval. */
function approvalOutcome(approval: ApprovalRecord, tool: string, argumentsPreview: string, now: Date): ApprovalOutcome {
  // Programming error: only a decided approval's card shows an outcome (every caller decided it first).
  if (approval.state === "pending") throw new RoundtableError("internal", `approval ${approval.id} is still pending`);
  return {
    approvalId: approval.id,
    shortId: approval.shortId,
    agent: approval.agent,
    tool,
    argumentsPreview,
    state: approval.state,
    ...(approval.choice === undefined ? {} : { choice: approval.choice }),
    ...(approval.decidedById === undefined || approval.decidedById === "roundtable"
      ? {}
      : { decidedBy: { id: approval.decidedById, name: approval.decidedByName ?? approval.decidedById } }),
    at: approval.decidedAt ?? now,
  };
}

/**
 * The one way a closed approval's card is updated: publishes `approval-decided` with the
 * outcome ({@link approvalOutcome}), changed by `change` (a note, a state the card shows).
 */
export async function publishApprovalOutcome(
  context: Pick<WorldContext, "clock" | "store" | "worlds">,
  outbox: Outbox,
  approval: ApprovalRecord,
  tool: string,
  argumentsPreview: string,
  change: Partial<Pick<ApprovalOutcome, "note" | "state" | "reason">> = {},
): Promise<void> {
  const outcome = approvalOutcome(approval, tool, argumentsPreview, context.clock());
  // In its chat, and on every copy where the world routes cards (docs/approvals.md).
  for (const place of await outcomePlaces(context, approval, { ...outcome, ...change })) {
    await outbox.publish(place.chatKey, {
      type: "approval-decided",
      chat: place.chat,
      outcome: place.outcome,
      ...(place.copy === undefined ? {} : { copy: place.copy }),
    });
  }
}

/** `45 seconds`, `30 minutes`, `2 hours`: how long an approval waited. */
export function describeWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}
