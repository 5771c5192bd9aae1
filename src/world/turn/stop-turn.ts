import type { TurnRecord } from "../records.js";
import { closeTurn } from "./close-turn.js";
import type { Outbox } from "../outbox.js";
import { recordToolResult } from "./record-tool-result.js";
import type { TurnInterrupts } from "./turn-interrupts.js";
import type { WorldContext } from "../world-context.js";

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

/**
 * Ends a turn that carries a stop marker: a running tool's call gets `interrupted`, every other
 * open call and pending approval `skipped` (the cards say who stopped them). Idempotent: the
 * steps run it when they find a marker on a turn a crash left unended.
 */
export async function finishStoppedTurn(context: WorldContext, outbox: Outbox, turn: TurnRecord): Promise<void> {
  const by = turn.stoppedBy;
  if (!by || turn.state === "ended") return;
  const detail = `stopped by ${by.name}`;
  for (const call of await context.store.listToolCalls({ turnId: turn.id })) {
    if (call.state === "running") await recordToolResult(context, outbox, call, "interrupted", detail);
  }
  await closeTurn(context, outbox, turn.id, "stopped", { kind: "skipped", detail, by });
}
