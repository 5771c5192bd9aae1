import type { ToolCallRecord } from "../world/records.js";
import type { AnswerDraft } from "../world/delivery/answer-draft.js";
import { finishStoppedTurn, recordToolResult, type TurnStop } from "../world/turn/index.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";

/** The line that ends an answer cut by `/stop`. */
function stoppedMark(name: string): string {
  return `(stopped by ${name})`;
}

/**
 * A model stream cut by `/stop`: the partial answer stays (stored as the step's answer, so the
 * agent sees it later) and the draft already in the chat is settled to it, ending with
 * `(stopped by <name>)`. Nothing was streamed: the draft goes. The turn itself is ended by the
 * stop; no further model call is made for it.
 */
export async function finishStoppedAnswer(
  runtime: AgentRuntime,
  scope: TurnScope,
  step: number,
  partial: string,
  answer: AnswerDraft,
  stop: TurnStop,
): Promise<void> {
  const { store, logger } = runtime.world;
  const { turn, agent } = scope;
  logger.info({ chat: turn.chatKey, agent: agent.name, turn: turn.id, step }, "model stream stopped");
  await showPartialAnswer(runtime, scope, step, partial, answer, stop);
  // A stop stored by another process is ended here, by the process that was running the turn.
  const current = await store.getTurn(turn.id);
  if (current) await finishStoppedTurn(runtime.world, runtime.outbox, current);
}

async function showPartialAnswer(
  runtime: AgentRuntime,
  scope: TurnScope,
  step: number,
  partial: string,
  answer: AnswerDraft,
  stop: TurnStop,
): Promise<void> {
  const { turn, agent } = scope;
  if (partial.trim() === "") {
    await answer.discard();
    return;
  }
  const { message } = await runtime.world.store.addModelStep(
    {
      id: `${turn.id}#${step}`,
      chatKey: turn.chatKey,
      author: { kind: "agent", id: agent.name, name: agent.name },
      text: `${partial.trimEnd()}\n\n${stoppedMark(stop.by.name)}`,
      turnId: turn.id,
      provider: agent.provider,
      model: agent.model,
    },
    [],
  );
  // Held before it is published, like every answer: the delivery may run in another process.
  await answer.publish(message);
}

/** Calls of a stopped turn that have no result get `skipped` (every call gets one result). */
export async function skipOpenCalls(runtime: AgentRuntime, calls: ToolCallRecord[], detail: string): Promise<void> {
  for (const call of calls) {
    const current = await runtime.world.store.getToolCall(call.id);
    if (current && current.state !== "done") {
      await recordToolResult(runtime.world, runtime.outbox, current, "skipped", detail);
    }
  }
}
