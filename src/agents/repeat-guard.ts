import type { ToolCallRecord } from "../world/records.js";
import type { AgentRuntime } from "./agent-runtime.js";

/**
 * The repeat guard, decided from the stored calls (never from result text): a call whose tool
 * and canonical arguments were already called `maxRepeats` times in earlier steps of its turn.
 * Returns how often it was called before, or undefined when it does not trip the guard.
 */
export function repeatGuardTripped(
  runtime: AgentRuntime,
  maxRepeats: number,
  call: ToolCallRecord,
  earlier: readonly ToolCallRecord[],
): number | undefined {
  const hash = callHash(runtime, call);
  if (hash === undefined) return undefined;
  const repeats = earlier.filter((other) => other.name === call.name && callHash(runtime, other) === hash).length;
  return repeats >= maxRepeats ? repeats : undefined;
}

function callHash(runtime: AgentRuntime, call: ToolCallRecord): string | undefined {
  const checked = runtime.tools.check(call.name, call.argumentsJson);
  return checked.ok ? runtime.policy.hash(call.name, checked.args) : undefined;
}
