/**
 * What a pending card shows besides the call, the same words on every channel (docs/approvals.md):
 * the model's reasoning of the step (invisible characters shown as escapes, as in arguments; the
 * channel escapes it as it escapes arguments), a quorum's progress and an escalation. Plain text:
 * each channel escapes it for its markup.
 */
import { type ApprovalCard, revealInvisible } from "../../src/world/channel-adapter.js";

/** The reasoning as the card shows it, or undefined when the step wrote none. */
export function cardReasoning(card: ApprovalCard): string | undefined {
  return card.reasoning === undefined ? undefined : revealInvisible(card.reasoning);
}

/** `Approvals: 1 of 2: Ana`, `Escalated: 333 may decide it too`, one line each that applies. */
export function cardStatusLines(card: ApprovalCard): string[] {
  const lines: string[] = [];
  if (card.quorum) {
    const names = card.quorum.approvedBy.join(", ");
    lines.push(
      `Approvals: ${card.quorum.approvedBy.length} of ${card.quorum.needed}${names === "" ? "" : `: ${names}`}`,
    );
  }
  if (card.escalatedTo && card.escalatedTo.length > 0)
    lines.push(`Escalated (no decision in time): ${card.escalatedTo.join(", ")} may decide it too`);
  return lines;
}
