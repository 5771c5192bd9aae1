import { parseChatKey } from "../world/chat-ref.js";
import { closeTurn } from "../world/turn/index.js";
import { postWorldNotice } from "../world/world-notice.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";

/** End the turn because a limit was reached, saying which. */
export async function endWithLimit(
  runtime: AgentRuntime,
  scope: TurnScope,
  reason: "max-steps" | "deadline" | "max-tool-calls" | "repeat-guard" | "budget",
  what: string,
): Promise<void> {
  // The budget notice is the world's, not the agent's: it already says all.
  const notice = reason === "budget" ? what : `${scope.agent.name} stopped: ${what}.`;
  await postWorldNotice(runtime.world, runtime.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "limit"),
    text: notice,
    turnId: scope.turn.id,
  });
  await closeTurn(runtime.world, runtime.outbox, scope.turn.id, reason, {
    kind: "skipped",
    detail: `the turn ended: ${what}`,
  });
}

export async function failTurn(runtime: AgentRuntime, scope: TurnScope, text: string): Promise<void> {
  await postWorldNotice(runtime.world, runtime.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "error"),
    text,
    level: "error",
    turnId: scope.turn.id,
  });
  await closeTurn(runtime.world, runtime.outbox, scope.turn.id, "provider-error", {
    kind: "skipped",
    detail: "the turn ended after a provider error",
  });
}

/** The id of a turn's own notice: once per turn, kind and step. */
function noticeId(scope: TurnScope, what: string): string {
  return `${scope.turn.id}:${what}:${scope.turn.step}`;
}
