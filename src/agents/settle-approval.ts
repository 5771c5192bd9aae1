import { approvalOutcome, describeWait } from "../world/approval-outcome.js";
import { parseChatKey } from "../world/chat-ref.js";
import { recordToolResult } from "../world/record-tool-result.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { continueTurn } from "./continue-turn.js";
import { executeToolCall } from "./execute-tool-call.js";

/** After a recorded decision: update the card, then run the call or give it its denial. */
export async function settleDecidedApproval(runtime: AgentRuntime, approvalId: string): Promise<void> {
  const { store, logger, clock } = runtime.world;
  const approval = await store.getApproval(approvalId);
  const call = approval ? await store.getToolCall(approval.toolCallId) : undefined;
  if (!approval || !call) {
    logger.warn({ approvalId }, "decided approval not found");
    return;
  }
  if (approval.state === "pending" || approval.state === "expired" || approval.state === "skipped") return;
  if (call.state === "awaiting-approval") {
    await runtime.outbox.publish(approval.chatKey, {
      type: "approval-decided",
      chat: parseChatKey(approval.chatKey),
      outcome: approvalOutcome(approval, call.name, previewOf(runtime, call.name, call.argumentsJson), clock()),
    });
  }
  if (approval.state === "denied") {
    const changes = await store.listApprovalChanges(approval.id);
    const note = changes.find((change) => change.state === "denied")?.note;
    const who = approval.decidedByName ?? "someone";
    await recordToolResult(runtime.world, runtime.outbox, call, "denied", `denied by ${who}${note ? `: ${note}` : ""}`);
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  if (approval.choice === "session") {
    const checked = runtime.tools.check(call.name, call.argumentsJson);
    const chat = await store.getChat(approval.chatKey);
    if (checked.ok && chat) {
      await store.addSessionGrant(
        {
          chatKey: approval.chatKey,
          agent: approval.agent,
          tool: call.name,
          argsHash: runtime.policy.hash(call.name, checked.args),
          sessionEpoch: chat.sessionEpoch,
        },
        approval.decidedById ?? "",
      );
    }
  }
  if (call.state === "awaiting-approval") await store.setToolCallState(call.id, "pending");
  await executeToolCall(runtime, call.id);
}

/** Expire an approval nobody decided in time: the call gets `expired`, the card says so. */
export async function expireApproval(runtime: AgentRuntime, approvalId: string): Promise<void> {
  const { store, clock, logger } = runtime.world;
  const approval = await store.getApproval(approvalId);
  if (approval?.state !== "pending") return;
  const decided = await store.decideApproval(approval.id, {
    state: "expired",
    actorId: "roundtable",
    actorName: "roundtable",
    at: clock(),
  });
  if (!decided.won) return;
  const call = await store.getToolCall(approval.toolCallId);
  if (!call) return;
  logger.info({ approvalId, chat: approval.chatKey }, "approval expired");
  await runtime.outbox.publish(approval.chatKey, {
    type: "approval-decided",
    chat: parseChatKey(approval.chatKey),
    outcome: approvalOutcome(decided.approval, call.name, previewOf(runtime, call.name, call.argumentsJson), clock()),
  });
  const waited = describeWait(approval.expiresAt.getTime() - approval.createdAt.getTime());
  await recordToolResult(runtime.world, runtime.outbox, call, "expired", `no decision within ${waited}`);
  await continueTurn(runtime, call.turnId, call.step);
}

function previewOf(runtime: AgentRuntime, name: string, argumentsJson: string): string {
  const checked = runtime.tools.check(name, argumentsJson);
  return checked.ok ? runtime.policy.preview(checked.args) : argumentsJson.slice(0, 500);
}
