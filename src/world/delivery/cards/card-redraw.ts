/**
 * Drawing a pending approval card again with its buttons kept (a quorum's progress, an
 * escalation: docs/approvals.md). A channel that can edit a card in place says so with
 * {@link CardRedrawChannel}; elsewhere the card stays as first drawn and the decision's
 * outcome still closes it.
 */
import { RoundtableError } from "../../../errors/roundtable-error.js";
import type { ApprovalCard } from "../../approval-types.js";
import { copyCardRef } from "../../approvals/card-copies.js";
import { type ChatRef, chatKey } from "../../chat-ref.js";
import { copyAwaitsItsCard } from "./card-copy.js";
import type { WorldEvent } from "../../events.js";
import type { WorldContext } from "../../world-context.js";

/** Capability: edit a posted card to show `card`, buttons and all; `gone` when it cannot be edited. */
export interface CardRedrawChannel {
  redrawCard(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone">;
}

export function canRedrawCards<Adapter extends object>(adapter: Adapter): adapter is Adapter & CardRedrawChannel {
  return typeof (adapter as Partial<CardRedrawChannel>).redrawCard === "function";
}

/**
 * The `approval-updated` delivery: the card is redrawn only while its approval is pending (a
 * decision's outcome, delivered after it in the chat's queue, is never drawn over).
 */
export async function redrawPendingCard(
  context: Pick<WorldContext, "store" | "logger">,
  adapter: object,
  event: Extract<WorldEvent, { type: "approval-updated" }>,
): Promise<void> {
  const { store, logger } = context;
  const approvalId = event.card.approvalId;
  if ((await store.getApproval(approvalId))?.state !== "pending") return;
  if (!canRedrawCards(adapter)) return;
  const posted = await store.getOutbound(
    "approval",
    event.copy ? copyCardRef(approvalId, chatKey(event.chat)) : approvalId,
  );
  if (!posted) {
    // A copy never shown (its person could not be reached, or it is closed) takes none.
    if (event.copy && !(await copyAwaitsItsCard(context, approvalId, chatKey(event.chat)))) return;
    // Its card is not posted yet (its delivery is being retried): try again later.
    throw new RoundtableError("internal", `approval ${approvalId} has no posted card yet`);
  }
  const id = posted.platformMessageIds[0];
  if (id === undefined) return;
  if ((await adapter.redrawCard(event.chat, id, event.card)) === "gone")
    logger.warn({ approvalId }, "approval card could not be redrawn (gone); its outcome will be posted");
}
