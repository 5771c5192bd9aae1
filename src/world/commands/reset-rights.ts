import { deciderCheck } from "../turn/index.js";
import type { ChatRef } from "../chat-ref.js";
import type { Sender } from "../inbound.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";

/**
 * Whether `sender` may `/reset` the chat: its pending approvals would be closed, so they must be
 * someone who may decide every one of them (an approver, or the person who asked). With nothing
 * pending, any member may (only session approvals end; they are asked again when needed).
 */
export async function mayReset(
  context: Pick<WorldContext, "store" | "channels" | "worlds">,
  world: WorldSettings,
  chat: ChatRef,
  chatKey: string,
  sender: Sender,
): Promise<boolean> {
  const pending = await context.store.listApprovals({ chatKey, states: ["pending"] });
  const mayDecide = deciderCheck(context, world, chat, sender);
  for (const approval of pending) {
    if (!(await mayDecide(approval.requestedFor))) return false;
  }
  return true;
}

/** The answer to someone who may not reset the chat. */
export const resetRefusedText =
  "Only the person who asked or an approver may reset this chat while its approvals are pending.";
