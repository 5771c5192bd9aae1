import { createHash } from "node:crypto";
import type { ChannelAdapter } from "./channel-adapter.js";
import { type ChatRef, chatKey } from "./chat-ref.js";
import { worldAuthor } from "./message.js";
import type { Outbox } from "./outbox.js";
import type { WorldContext } from "./world-context.js";

/** Capability: tell one person something only they see (Slack ephemeral, Discord DM). */
export interface PrivateReplyChannel {
  replyPrivately(chat: ChatRef, userId: string, text: string): Promise<void>;
}

export function isPrivateReplyChannel(adapter: ChannelAdapter): adapter is ChannelAdapter & PrivateReplyChannel {
  return typeof (adapter as Partial<PrivateReplyChannel>).replyPrivately === "function";
}

/** The start of the hour (or minute) `at` falls in, as a bucket name for once-per-period notices. */
export function periodBucket(at: Date, periodMs: number): string {
  return new Date(Math.floor(at.getTime() / periodMs) * periodMs).toISOString();
}

/**
 * Tell a person something at most once per `onceKey` (the key names the period, e.g. the
 * hour): privately where the channel can, else as a short notice in the chat. The key is
 * claimed in the database, so restarts and other processes keep the limit.
 */
export async function noticeOnce(
  context: WorldContext,
  outbox: Outbox,
  chat: ChatRef,
  userId: string,
  onceKey: string,
  text: string,
): Promise<boolean> {
  const key = chatKey(chat);
  const fresh = await context.store.claimInboundKey(`notice:${key}:${onceKey}`);
  if (!fresh) return false;
  const adapter = context.channels.get(chat.platform);
  if (adapter && isPrivateReplyChannel(adapter)) {
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
