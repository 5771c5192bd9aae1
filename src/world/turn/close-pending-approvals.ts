import { closeTurn } from "./close-turn.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";

/**
 * Close every pending approval of a chat as `skipped` (`/reset`): each turn parked on them
 * ends, keeping the closure invariant, and each card says why (`note`). Returns how many turns
 * were closed. Idempotent: a second run finds nothing pending.
 */
export async function closePendingApprovals(
  context: WorldContext,
  outbox: Outbox,
  chatKey: string,
  note: string,
): Promise<number> {
  const pending = await context.store.listApprovals({ chatKey, states: ["pending"] });
  const turnIds = [...new Set(pending.map((approval) => approval.turnId))];
  for (const turnId of turnIds) {
    await closeTurn(context, outbox, turnId, "reset", { kind: "skipped", detail: note });
  }
  return turnIds.length;
}
