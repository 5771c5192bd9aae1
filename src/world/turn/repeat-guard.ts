import type { ToolCallRecord } from "../records.js";
import type { LoopParts } from "./turn-scope.js";

/** What the model reads as the result of a call the repeat guard blocked. */
export const repeatGuardDetail = "repeat guard: the same tool with the same arguments was already called";

/**
 * The repeat guard, decided from the stored calls (never from result text): a call whose tool
 * and canonical arguments were already called `maxRepeats` times in earlier steps of its turn.
 * Returns how often it was called before, or undefined when it does not trip the guard.
 */
export function repeatGuardTripped(
  loop: LoopParts,
  maxRepeats: number,
  call: ToolCallRecord,
  earlier: readonly ToolCallRecord[],
): number | undefined {
  const hash = callHash(loop, call);
  if (hash === undefined) return undefined;
  const repeats = earlier.filter((other) => other.name === call.name && callHash(loop, other) === hash).length;
  return repeats >= maxRepeats ? repeats : undefined;
}

function callHash(loop: LoopParts, call: ToolCallRecord): string | undefined {
  const checked = loop.workers.checkArguments(call.name, call.argumentsJson);
  return checked.ok ? loop.workers.policy.hash(call.name, checked.args) : undefined;
}
