import { type ChatRef, chatKey } from "../chat-ref.js";
import { closePendingApprovals } from "../turn/index.js";
import type { Sender } from "../inbound.js";
import type { Outbox } from "../outbox.js";
import { postWorldNotice } from "../world-notice.js";
import type { WorldContext } from "../world-context.js";

/** `/reset`: a new session epoch (session approvals end) and pending cards closed, said in the chat. */
export async function resetChat(
  context: WorldContext,
  outbox: Outbox,
  chat: ChatRef,
  noticeId: string,
  by: Sender,
): Promise<void> {
  const key = chatKey(chat);
  const epoch = await context.store.resetSession(key);
  const closed = await closePendingApprovals(context, outbox, key, `chat reset by ${by.displayName}`);
  context.logger.info({ chat: key, epoch, closedTurns: closed, user: by.id }, "chat reset: session approvals cleared");
  await postWorldNotice(context, outbox, {
    chat,
    id: noticeId,
    text: `Chat reset by ${by.displayName}: approvals given for this session no longer apply${closed > 0 ? "; pending approvals were closed" : ""}.`,
  });
}
