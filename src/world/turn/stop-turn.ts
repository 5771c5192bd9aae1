import type { TurnRecord } from "../records.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import { finishStoppedTurn } from "./close-turn.js";
import type { TurnInterrupts } from "./turn-interrupts.js";

/**
 * `/stop` for one turn: store the stop marker first (so nothing of the turn runs afterwards,
 * in this process, in another, or after a crash), abort its running work in this process,
 * then end it. Undefined when the turn was already ended or stopped.
 */
export async function stopTurn(
  context: WorldContext,
  outbox: Outbox,
  interrupts: TurnInterrupts,
  turnId: string,
  by: { id: string; name: string },
): Promise<TurnRecord | undefined> {
  const marked = await context.store.markTurnStopped(turnId, by);
  if (!marked) return undefined;
  context.logger.info({ chat: marked.chatKey, agent: marked.agent, turn: turnId, by: by.id }, "turn stopped");
  interrupts.interrupt({ turnId, by });
  await finishStoppedTurn(context, outbox, marked);
  return marked;
}
