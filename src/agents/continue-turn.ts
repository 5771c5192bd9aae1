import { jobKey } from "../world/jobs.js";
import { closeTurn, resumeTurn } from "../world/turn/index.js";
import { type AgentRuntime, loadTurnScope } from "./agent-runtime.js";
import { endWithLimit } from "./end-turn.js";
import { repeatGuardTripped } from "./repeat-guard.js";

/**
 * When every call of a step has its result, the turn goes on with the next provider call
 * (queued once: the job key is the step). A repeat-guard block ends the turn; with
 * `afterDenial: wait` a denial ends it quietly. While calls wait for approval, nothing happens.
 */
export async function continueTurn(runtime: AgentRuntime, turnId: string, step: number): Promise<void> {
  const { store, queue } = runtime.world;
  const scope = await loadTurnScope(runtime, turnId);
  if (!scope || scope.turn.state === "ended") return;
  const calls = await store.listToolCalls({ turnId, step });
  if (calls.length === 0) return; // a text-only step ends its turn itself
  const results = await store.listToolResults(calls.map((call) => call.id));
  if (results.length < calls.length) return;

  const blocked = new Set(results.filter((result) => result.kind === "blocked").map((result) => result.toolCallId));
  const earlier = (await store.listToolCalls({ turnId })).filter((call) => call.step < step);
  const maxRepeats = scope.agent.limits.maxRepeats;
  if (
    calls.some((call) => blocked.has(call.id) && repeatGuardTripped(runtime, maxRepeats, call, earlier) !== undefined)
  ) {
    await endWithLimit(runtime, scope, "repeat-guard", "it called the same tool with the same arguments again");
    return;
  }
  if (scope.world.afterDenial === "wait" && results.some((result) => result.kind === "denied")) {
    await closeTurn(runtime.world, runtime.outbox, turnId, "denied", {
      kind: "skipped",
      detail: "the turn ended after a denial",
    });
    return;
  }
  await resumeTurn(runtime.world, scope.turn, scope.agent.limits.deadline);
  const payload = { kind: "turn-step", turnId, step: step + 1 } as const;
  await queue.add({ queue: scope.turn.chatKey, key: jobKey(payload), payload });
}
