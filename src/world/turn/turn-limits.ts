import { parseChatKey } from "../chat-ref.js";
import type { ToolCallRecord } from "../records.js";
import { postWorldNotice } from "../world-notice.js";
import { closeTurn } from "./close-turn.js";
import type { LoopParts, TurnScope } from "./turn-scope.js";

/** What the model reads as the result of a call the repeat guard blocked. */
export const repeatGuardDetail = "repeat guard: the same tool with the same arguments was already called";

/** End the turn because a limit was reached, saying which. */
export async function endWithLimit(
  loop: LoopParts,
  scope: TurnScope,
  reason: "max-steps" | "deadline" | "max-tool-calls" | "repeat-guard" | "budget",
  what: string,
): Promise<void> {
  // The budget notice is the world's, not the agent's: it already says all.
  const notice = reason === "budget" ? what : `${scope.agent.name} stopped: ${what}.`;
  await postWorldNotice(loop.world, loop.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "limit"),
    text: notice,
    turnId: scope.turn.id,
  });
  await closeTurn(loop.world, loop.outbox, scope.turn.id, reason, {
    kind: "skipped",
    detail: `the turn ended: ${what}`,
  });
}

export async function failTurn(loop: LoopParts, scope: TurnScope, text: string): Promise<void> {
  await postWorldNotice(loop.world, loop.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "error"),
    text,
    level: "error",
    turnId: scope.turn.id,
  });
  await closeTurn(loop.world, loop.outbox, scope.turn.id, "provider-error", {
    kind: "skipped",
    detail: "the turn ended after a provider error",
  });
}

/** The id of a turn's own notice: once per turn, kind and step. */
function noticeId(scope: TurnScope, what: string): string {
  return `${scope.turn.id}:${what}:${scope.turn.step}`;
}

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
