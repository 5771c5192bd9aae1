import type { ApprovalRecord, ToolCallRecord } from "../world/records.js";
import { approvalOutcome, describeWait, recordToolResult } from "../world/turn/index.js";
import { parseChatKey } from "../world/chat-ref.js";
import { jobKey } from "../world/jobs.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { continueTurn } from "./continue-turn.js";
import { executeToolCall } from "./execute-tool-call.js";

/**
 * After a recorded decision: update the card, then run the call or give it its denial. Run
 * again (after a restart at any point) it only finishes what is left.
 */
export async function settleDecidedApproval(runtime: AgentRuntime, approvalId: string): Promise<void> {
  const { store, logger } = runtime.world;
  const approval = await store.getApproval(approvalId);
  const call = approval ? await store.getToolCall(approval.toolCallId) : undefined;
  if (!approval || !call) {
    logger.warn({ approvalId }, "decided approval not found");
    return;
  }
  if (approval.state === "pending" || approval.state === "skipped") return;
  if (approval.state === "expired") return finishExpired(runtime, approval, call);
  const result = await store.getToolResult(call.id);
  if (result && call.state === "done" && result.kind === "skipped") {
    // The turn was superseded between the click and now: the card says so, nothing runs.
    await publishOutcome(runtime, approval, call, "skipped");
    return;
  }
  if (call.state === "awaiting-approval") await publishOutcome(runtime, approval, call);
  if (approval.state === "denied") {
    const changes = await store.listApprovalChanges(approval.id);
    const note = changes.find((change) => change.state === "denied")?.note;
    const who = approval.decidedByName ?? "someone";
    await recordToolResult(runtime.world, runtime.outbox, call, "denied", `denied by ${who}${note ? `: ${note}` : ""}`);
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  if (call.state === "awaiting-approval") await store.setToolCallState(call.id, "pending");
  await executeToolCall(runtime, call.id);
}

/** Expire an approval nobody decided in time: the call gets `expired`, the card says so. */
export async function expireApproval(runtime: AgentRuntime, approvalId: string): Promise<void> {
  const { store, clock, logger, queue } = runtime.world;
  let approval = await store.getApproval(approvalId);
  if (!approval) return;
  if (approval.state === "approved" || approval.state === "denied") {
    // Decided in time; make sure the decision's own step exists (it may have been lost in a crash).
    const payload = { kind: "approval-decided", approvalId } as const;
    await queue.add({ queue: approval.chatKey, key: jobKey(payload), payload });
    return;
  }
  if (approval.state === "pending") {
    const decided = await store.decideApproval(approval.id, {
      state: "expired",
      actorId: "roundtable",
      actorName: "roundtable",
      at: clock(),
    });
    approval = decided.approval;
    if (!decided.won) return expireApproval(runtime, approvalId);
    logger.info({ approvalId, chat: approval.chatKey }, "approval expired");
  }
  if (approval.state !== "expired") return;
  const call = await store.getToolCall(approval.toolCallId);
  if (call) await finishExpired(runtime, approval, call);
}

/** The card update, the `expired` result and the turn going on; each step safe to repeat. */
async function finishExpired(runtime: AgentRuntime, approval: ApprovalRecord, call: ToolCallRecord): Promise<void> {
  if (call.state === "done") {
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  await publishOutcome(runtime, approval, call);
  const waited = describeWait(approval.expiresAt.getTime() - approval.createdAt.getTime());
  await recordToolResult(runtime.world, runtime.outbox, call, "expired", `no decision within ${waited}`);
  await continueTurn(runtime, call.turnId, call.step);
}

async function publishOutcome(
  runtime: AgentRuntime,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  state?: "skipped",
): Promise<void> {
  const outcome = approvalOutcome(
    approval,
    call.name,
    previewOf(runtime, call.name, call.argumentsJson),
    runtime.world.clock(),
  );
  await runtime.outbox.publish(approval.chatKey, {
    type: "approval-decided",
    chat: parseChatKey(approval.chatKey),
    outcome: state === undefined ? outcome : { ...outcome, state },
  });
}

function previewOf(runtime: AgentRuntime, name: string, argumentsJson: string): string {
  const checked = runtime.tools.check(name, argumentsJson);
  return checked.ok ? runtime.policy.preview(checked.args) : argumentsJson.slice(0, 500);
}
