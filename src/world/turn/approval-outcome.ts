import type { ApprovalRecord } from "../records.js";
import { parseChatKey } from "../chat-ref.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import type { ApprovalOutcome } from "./approval-types.js";

/** What a card shows once an approval is closed, from the stored (decided) approval. */
function approvalOutcome(approval: ApprovalRecord, tool: string, argumentsPreview: string, now: Date): ApprovalOutcome {
  if (approval.state === "pending") throw new Error(`approval ${approval.id} is still pending`);
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
  context: Pick<WorldContext, "clock">,
  outbox: Outbox,
  approval: ApprovalRecord,
  tool: string,
  argumentsPreview: string,
  change: Partial<Pick<ApprovalOutcome, "note" | "state" | "reason">> = {},
): Promise<void> {
  const outcome = approvalOutcome(approval, tool, argumentsPreview, context.clock());
  await outbox.publish(approval.chatKey, {
    type: "approval-decided",
    chat: parseChatKey(approval.chatKey),
    outcome: { ...outcome, ...change },
  });
}

/** `45 seconds`, `30 minutes`, `2 hours`: how long an approval waited. */
export function describeWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}
