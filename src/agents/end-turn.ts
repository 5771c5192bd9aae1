import { parseChatKey } from "../world/chat-ref.js";
import { closeTurn } from "../world/turn/index.js";
import { worldAuthor } from "../world/message.js";
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
  await postNotice(runtime, scope, notice, `limit`);
  await closeTurn(runtime.world, runtime.outbox, scope.turn.id, reason, {
    kind: "skipped",
    detail: `the turn ended: ${what}`,
  });
}

export async function failTurn(runtime: AgentRuntime, scope: TurnScope, text: string): Promise<void> {
  await postNotice(runtime, scope, text, "error", "error");
  await closeTurn(runtime.world, runtime.outbox, scope.turn.id, "provider-error", {
    kind: "skipped",
    detail: "the turn ended after a provider error",
  });
}

async function postNotice(
  runtime: AgentRuntime,
  scope: TurnScope,
  text: string,
  what: string,
  level: "notice" | "error" = "notice",
) {
  const { store } = runtime.world;
  const id = `${scope.turn.id}:${what}:${scope.turn.step}`;
  if (await store.getMessage(id)) return;
  const message = await store.addMessage({
    id,
    chatKey: scope.turn.chatKey,
    author: worldAuthor,
    text,
    turnId: scope.turn.id,
  });
  await runtime.outbox.publish(scope.turn.chatKey, {
    type: "system",
    chat: parseChatKey(scope.turn.chatKey),
    level,
    message,
  });
}
