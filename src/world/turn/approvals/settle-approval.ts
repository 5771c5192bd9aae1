import type { ApprovalRecord, ToolCallRecord } from "../../records.js";
import { jobKey } from "../../jobs.js";
import type { Outbox } from "../../outbox.js";
import type { WorldContext } from "../../world-context.js";
import { describeWait, publishApprovalOutcome } from "./approval-outcome.js";
import { isBudgetApproval, settleBudgetApproval } from "./budget-approval.js";
import { recordToolResult } from "../record-tool-result.js";
import { releaseApproved } from "../turn-state.js";
import { denialText } from "./sticky-denial.js";

/** What the agents side does next with a settled approval's call: run it, go on with the turn, or nothing. */
export type ApprovalNext =
  | { kind: "run"; toolCallId: string }
  | { kind: "continue"; turnId: string; step: number }
  | { kind: "budget"; approvalId: string; approved: boolean }
  | { kind: "none" };

/** How a card shows a call's arguments (the tool side knows the schema and the policy's preview). */
export type ArgumentsPreview = (tool: string, argumentsJson: string) => string;

const none: ApprovalNext = { kind: "none" };

/**
 * After a recorded decision: update the card, then say whether the call runs or give it its
 * denial. Run again (after a restart at any point) it only finishes what is left.
 */
export async function settleDecidedApproval(
  context: WorldContext,
  outbox: Outbox,
  approvalId: string,
  preview: ArgumentsPreview,
): Promise<ApprovalNext> {
  const { store, logger } = context;
  const approval = await store.getApproval(approvalId);
  if (approval && isBudgetApproval(approval)) return settleBudgetApproval(context, outbox, approval);
  const call = approval ? await store.getToolCall(approval.toolCallId) : undefined;
  if (!approval || !call) {
    logger.warn({ approvalId }, "decided approval not found");
    return none;
  }
  if (approval.state === "pending" || approval.state === "skipped") return none;
  if (approval.state === "expired") return finishExpired(context, outbox, approval, call, preview);
  const result = await store.getToolResult(call.id);
  if (result && call.state === "done" && result.kind === "skipped") {
    // The turn was superseded between the click and now: the card says so, nothing runs.
    await publishOutcome(context, outbox, approval, call, preview, "skipped");
    return none;
  }
  const note =
    approval.state === "denied"
      ? (await store.listApprovalChanges(approval.id)).find((change) => change.state === "denied")?.note
      : undefined;
  if (call.state === "awaiting-approval")
    await publishOutcome(context, outbox, approval, call, preview, undefined, note);
  if (approval.state === "denied") {
    // Verbatim: the model reads exactly `denied by <name>: <reason>` (docs/approvals.md).
    const who = approval.decidedByName ?? "someone";
    await recordToolResult(context, outbox, call, "denied", denialText(who, note), { verbatim: true });
    return { kind: "continue", turnId: call.turnId, step: call.step };
  }
  await releaseApproved(context, call);
  return { kind: "run", toolCallId: call.id };
}

/**
 * The `approval-expire` step, for an approval nobody decided in time: the expiry is recorded
 * ({@link recordExpiry}), the card says so and the call gets `expired`.
 */
export async function expireApproval(
  context: WorldContext,
  outbox: Outbox,
  approvalId: string,
  preview: ArgumentsPreview,
): Promise<ApprovalNext> {
  const approval = await recordExpiry(context, approvalId);
  if (!approval) return none;
  if (approval.state === "approved" || approval.state === "denied") {
    // Decided in time; make sure the decision's own step exists (it may have been lost in a crash).
    await queueDecidedStep(context, approval);
    return none;
  }
  if (approval.state !== "expired") return none;
  if (isBudgetApproval(approval)) return settleBudgetApproval(context, outbox, approval);
  const call = await context.store.getToolCall(approval.toolCallId);
  return call ? finishExpired(context, outbox, approval, call, preview) : none;
}

/**
 * The one place an approval expires: a pending approval past its deadline is recorded
 * `expired` (first decision wins, so a racing click or expiry step changes nothing). Both the
 * `approval-expire` step and a press after the deadline come here. Returns the approval as it
 * stands afterwards (expired, or decided by someone first).
 */
export async function recordExpiry(
  context: WorldContext,
  approvalId: string,
  trigger: "expiry step" | "late click" = "expiry step",
): Promise<ApprovalRecord | undefined> {
  const { store, clock, logger } = context;
  for (;;) {
    const approval = await store.getApproval(approvalId);
    if (approval?.state !== "pending") return approval;
    const decided = await store.decideApproval(approval.id, {
      state: "expired",
      actorId: "roundtable",
      actorName: "roundtable",
      at: clock(),
    });
    if (decided.won) {
      logger.info({ approvalId, chat: approval.chatKey, trigger }, "approval expired");
      return decided.approval;
    }
  }
}

/** Queue the step that acts on a recorded decision (deduped by its key; safe to repeat). */
export async function queueDecidedStep(context: Pick<WorldContext, "queue">, approval: ApprovalRecord): Promise<void> {
  const payload = { kind: "approval-decided", approvalId: approval.id } as const;
  await context.queue.add({ queue: approval.chatKey, key: jobKey(payload), payload });
}

/** The card update, the `expired` result and the turn going on; each step safe to repeat. */
async function finishExpired(
  context: WorldContext,
  outbox: Outbox,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  preview: ArgumentsPreview,
): Promise<ApprovalNext> {
  if (call.state !== "done") {
    await publishOutcome(context, outbox, approval, call, preview);
    const waited = describeWait(approval.expiresAt.getTime() - approval.createdAt.getTime());
    await recordToolResult(context, outbox, call, "expired", `no decision within ${waited}`);
  }
  return { kind: "continue", turnId: call.turnId, step: call.step };
}

function publishOutcome(
  context: WorldContext,
  outbox: Outbox,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  preview: ArgumentsPreview,
  state?: "skipped",
  reason?: string,
): Promise<void> {
  const change = { ...(state === undefined ? {} : { state }), ...(reason === undefined ? {} : { reason }) };
  // An edited call's card shows the arguments that ran (its outcome says who edited them).
  const args = approval.editedArgumentsJson ?? call.argumentsJson;
  return publishApprovalOutcome(context, outbox, approval, call.name, preview(call.name, args), change);
}
