import { createHash } from "node:crypto";
import { canReplyPrivately } from "./channel-optional.js";
import { type ChatRef, chatKey } from "./chat-ref.js";
import { worldAuthor } from "./message.js";
import type { Outbox } from "./outbox.js";
import type { WorldContext } from "./world-context.js";

/** The start of the hour (or minute) `at` falls in, as a bucket name for once-per-period notices. */
export function periodBucket(at: Date, periodMs: number): string {
  return new Date(Math.floor(at.getTime() / periodMs) * periodMs).toISOString();
}

/**
 * Tell a person (`userId`) or the whole chat (undefined) something at most once per `onceKey`
 * (the key names the period, e.g. the hour): a person privately where the channel can, else
 * as a short notice in the chat. The key is claimed in the database, so restarts and other
 * processes keep the limit.
 */
export async function noticeOnce(
  context: WorldContext,
  outbox: Outbox,
  chat: ChatRef,
  userId: string | undefined,
  onceKey: string,
  text: string,
): Promise<boolean> {
  const key = chatKey(chat);
  const fresh = await context.store.claimInboundKey(`notice:${key}:${onceKey}`);
  if (!fresh) return false;
  const adapter = context.channels.main(chat.platform);
  if (userId !== undefined && adapter && canReplyPrivately(adapter)) {
    try {
      await adapter.replyPrivately(chat, userId, text);
      return true;
    } catch (error) {
      context.logger.warn({ err: error, chat: key }, "private reply failed; telling the chat instead");
    }
  }
  const id = `notice-${createHash("sha256").update(`${key}\u0000${onceKey}`).digest("hex").slice(0, 32)}`;
  const notice = await context.store.addMessage({ id, chatKey: key, author: worldAuthor, text });
  await outbox.publish(key, { type: "system", chat, level: "notice", message: notice });
  return true;
}
