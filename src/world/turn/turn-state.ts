import type { MessageRecord, ToolCallRecord, TurnRecord } from "../records.js";
import { turnIdFor } from "../ids.js";
import type { WorldContext } from "../world-context.js";

/**
 * A turn's states and the steps between them: `running` (a model step or its tools) →
 * `parked` (calls wait for approvals) → `running` → … → `ended` (only through `closeTurn`).
 * These are the only writes of a turn's row besides `closeTurn` and the stop marker.
 */

/** A new turn of `agent` answering `message`, counted against the chat's agent-turn limit. */
export async function startTurn(
  context: Pick<WorldContext, "store" | "clock">,
  message: MessageRecord,
  agent: string,
  startedById: string,
  deadlineMs: number,
): Promise<TurnRecord> {
  const { store, clock } = context;
  const turn = await store.createTurn(
    {
      id: turnIdFor(message.id, agent),
      chatKey: message.chatKey,
      agent,
      triggerMessageId: message.id,
      startedById,
      deadlineAt: new Date(clock().getTime() + deadlineMs),
    },
    { countInChat: true },
  );
  return turn;
}

/**
 * A policy hook answered a message in an agent's place (docs/hooks.md): that counts as an agent
 * turn against the chat's limit, as the turn it replaced would have.
 */
export async function countPolicyAnswer(context: Pick<WorldContext, "store">, chatKey: string): Promise<void> {
  await context.store.incrementAgentTurns(chatKey);
}

/** The model step `step` of the turn is under way. */
export async function beginStep(context: Pick<WorldContext, "store">, turnId: string, step: number): Promise<void> {
  await context.store.updateTurn(turnId, { state: "running", step });
}

/** Calls of the turn wait for approvals: the chat goes on meanwhile. */
export async function parkTurn(context: Pick<WorldContext, "store">, turnId: string): Promise<void> {
  await context.store.updateTurn(turnId, { state: "parked" });
}

/**
 * Every call of a step has its result: the turn runs again. Time parked on approvals does not
 * count against the deadline, so a parked turn gets its deadline anew.
 */
export async function resumeTurn(
  context: Pick<WorldContext, "store" | "clock">,
  turn: TurnRecord,
  deadlineMs: number,
): Promise<void> {
  const resumed = turn.state === "parked";
  await context.store.updateTurn(turn.id, {
    state: "running",
    ...(resumed ? { deadlineAt: new Date(context.clock().getTime() + deadlineMs) } : {}),
  });
}

/** A call waits for its approval. */
export async function awaitApproval(context: Pick<WorldContext, "store">, call: ToolCallRecord): Promise<void> {
  if (call.state !== "awaiting-approval") await context.store.setToolCallState(call.id, "awaiting-approval");
}

/** An approved call may run (it was `awaiting-approval`). */
export async function releaseApproved(context: Pick<WorldContext, "store">, call: ToolCallRecord): Promise<void> {
  if (call.state === "awaiting-approval") await context.store.setToolCallState(call.id, "pending");
}

/**
 * A call is about to run. Marked before the run, so a call found `running` after a crash gets
 * `interrupted` and never runs twice.
 */
export async function markCallRunning(context: Pick<WorldContext, "store">, call: ToolCallRecord): Promise<void> {
  await context.store.setToolCallState(call.id, "running");
}
