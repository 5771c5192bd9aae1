import { approvalOutcome } from "./approval-outcome.js";
import type { ApprovalState, ToolResultKind } from "./approval-types.js";
import { parseChatKey } from "../chat-ref.js";
import type { TurnEndReason } from "../events.js";
import type { Outbox } from "../outbox.js";
import { recordToolResult } from "./record-tool-result.js";
import type { WorldContext } from "../world-context.js";

/**
 * The one way a turn ends (answered, a limit, an error, superseded, a reset, `/stop`: "end
 * this turn now with reason X"). It keeps the closure invariant: every call of the turn that has no result gets
 * a synthetic one (`kind: detail`), every pending approval of the turn is closed and its card
 * updated, then the turn is marked ended and `turn-ended` is published. Idempotent.
 */
export async function closeTurn(
  context: WorldContext,
  outbox: Outbox,
  turnId: string,
  reason: TurnEndReason,
  open: {
    kind: Extract<ToolResultKind, "skipped" | "interrupted" | "expired" | "denied" | "blocked">;
    detail: string;
    /** The person who closed the turn (`/stop`): recorded on its approvals, and the cards say why. */
    by?: { id: string; name: string };
  },
): Promise<void> {
  const { store, clock } = context;
  const turn = await store.getTurn(turnId);
  if (!turn || turn.state === "ended") return;
  const chat = parseChatKey(turn.chatKey);
  const approvalState: Exclude<ApprovalState, "pending" | "approved"> =
    open.kind === "expired" ? "expired" : open.kind === "denied" ? "denied" : "skipped";
  for (const approval of await store.listApprovals({ turnId, states: ["pending"] })) {
    const decided = await store.decideApproval(approval.id, {
      state: approvalState,
      actorId: open.by?.id ?? "roundtable",
      actorName: open.by?.name ?? "roundtable",
      note: open.detail,
      at: clock(),
    });
    if (!decided.won) continue;
    const tool = (await store.getToolCall(approval.toolCallId))?.name ?? "tool";
    await outbox.publish(turn.chatKey, {
      type: "approval-decided",
      chat,
      outcome: { ...approvalOutcome(decided.approval, tool, "", clock()), note: open.detail },
    });
  }
  for (const call of await store.listToolCalls({ turnId })) {
    if (call.state === "done") continue;
    await recordToolResult(context, outbox, call, open.kind, open.detail);
  }
  await store.updateTurn(turnId, { state: "ended", endReason: reason, endedAt: clock() });
  await outbox.publish(turn.chatKey, {
    type: "turn-ended",
    chat,
    agent: turn.agent,
    turnId,
    reason,
    startedAt: turn.startedAt,
  });
}
