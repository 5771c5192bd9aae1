import { createHash } from "node:crypto";
import type { MessageRecord } from "./records.js";
import { canReplyPrivately } from "./channel/channel-optional.js";
import { type ChatRef, chatKey } from "./chat-ref.js";
import type { WorldEvent } from "./events.js";
import { worldAuthor } from "./message.js";
import type { WorldContext } from "./world-context.js";

/** What a notice is published through: the outbox (its type only, so the outbox can post notices too). */
export interface NoticeOutbox {
  publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<unknown>;
}

/** A notice from the world in a chat: shown once under its fixed id. */
export interface WorldNotice {
  chat: ChatRef;
  /** The notice's message id: derived from what it answers, so a step run again never shows it twice. */
  id: string;
  text: string;
  /** `error` for a turn cut by a provider error; default `notice`. */
  level?: "notice" | "error";
  /** The turn the notice ends (a limit, an error). */
  turnId?: string;
}

/**
 * The one way the world says something in a chat (a command's answer, a limit, an unknown
 * agent, a turn cut short): stores the notice under its fixed id and shows it; false (nothing
 * shown) when that id exists already, so an action run again after a crash never shows its
 * notice twice.
 */
export async function postWorldNotice(
  context: Pick<WorldContext, "store">,
  outbox: NoticeOutbox,
  notice: WorldNotice,
): Promise<boolean> {
  const { store } = context;
  const key = chatKey(notice.chat);
  if (await store.getMessage(notice.id)) return false;
  let message: MessageRecord;
  try {
    message = await store.addMessage({
      id: notice.id,
      chatKey: key,
      author: worldAuthor,
      text: notice.text,
      ...(notice.turnId === undefined ? {} : { turnId: notice.turnId }),
    });
  } catch (error) {
    if (await store.getMessage(notice.id)) return false; // a concurrent run stored it first
    throw error;
  }
  await outbox.publish(key, { type: "system", chat: notice.chat, level: notice.level ?? "notice", message });
  return true;
}

/** The start of the hour (or minute) `at` falls in, as a bucket name for once-per-period notices. */
export function periodBucket(at: Date, periodMs: number): string {
  return new Date(Math.floor(at.getTime() / periodMs) * periodMs).toISOString();
}

/**
 * Tell a person (`userId`) or the whole chat (undefined) something at most once per `onceKey`
 * (the key names the period, e.g. the hour): a person privately where the channel can, else
 * as a world notice in the chat ({@link postWorldNotice}). The key is claimed in the database,
 * so restarts and other processes keep the limit.
 */
export async function noticeOnce(
  context: WorldContext,
  outbox: NoticeOutbox,
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
  await postWorldNotice(context, outbox, { chat, id, text });
  return true;
}
