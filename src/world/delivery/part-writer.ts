import type { ApprovalCard, ApprovalOutcome } from "../approval-types.js";
import type { ChatRef } from "../chat-ref.js";
import { type Author, worldAuthor } from "../message.js";
import type { OutboundText, SentRef } from "../outbound-text.js";
import { type PostKey, partKeyOf } from "./post-key.js";
import type { ChannelPrimitives, SendPartOptions } from "./primitives.js";

/**
 * Where a post is, told to the world the moment it changes (its ids stored before the writer
 * goes on): a crash in between leaves a record that the next run edits, never a second post.
 */
export type RecordIds = (sent: SentRef) => Promise<void>;

/**
 * Post one part once (docs/architecture.md, "Posting once"): when an earlier run may have
 * posted it (`key.mayExist`), ask the channel for that post first and, found, make it show this
 * part (an earlier run may have posted a stream's first, shorter text) instead of posting;
 * else send it with its key, which the platform carries where it can.
 */
export async function sendPartOnce<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  author: Author,
  part: Part,
  options: SendPartOptions = {},
): Promise<string> {
  const { key, live } = options;
  if (key?.mayExist && channel.findPosted) {
    const found = await channel.findPosted(chat, author, key, part);
    if (found) {
      if (found.shows === undefined || !channel.samePart(found.shows, part)) {
        await channel.editPart(chat, author, found.id, part, live ? { live } : {});
      }
      return found.id;
    }
  }
  return channel.sendPart(chat, author, part, options);
}

export interface WriteTextOptions {
  /** Platform ids the post already has (a recorded draft): edited in place, surplus removed. */
  shown?: readonly string[];
  key?: PostKey;
  record?: RecordIds;
}

/**
 * Make the chat show `message`: post its parts, or, given the ids it already has, edit the
 * parts that exist, send the missing ones and remove the surplus. The ids so far are recorded
 * before each further part is sent and before surplus parts are removed; the caller records
 * the returned ids (with whatever else it stores) once this returns.
 */
export async function writeText<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  message: OutboundText,
  options: WriteTextOptions = {},
): Promise<SentRef> {
  const { author } = message;
  const shown = options.shown ?? [];
  const parts = await channel.renderParts(chat, message);
  const ids: string[] = [];
  let recorded: readonly string[] = shown;
  const record = async (now: string[]) => {
    if (sameIds(now, recorded)) return;
    recorded = [...now];
    await options.record?.({ ids: [...now] });
  };
  for (const [index, part] of parts.entries()) {
    const existing = shown[index];
    if (existing !== undefined) {
      await channel.editPart(chat, author, existing, part);
      ids.push(existing);
      continue;
    }
    if (index > 0) await record(ids);
    const replyTo = index === 0 ? message.replyTo : undefined;
    ids.push(
      await sendPartOnce(channel, chat, author, part, {
        ...(options.key === undefined ? {} : { key: partKeyOf(options.key, index) }),
        ...(replyTo === undefined ? {} : { replyTo }),
      }),
    );
  }
  const surplus = shown.slice(parts.length);
  if (surplus.length > 0) {
    await record(ids);
    for (const id of surplus) await channel.deletePart(chat, author, id);
  }
  return { ids };
}

/**
 * Post an approval card. When the card carries more (its arguments as a file), the card's id
 * is recorded before that is sent: a crash in between loses the file, never posts the card twice.
 */
export async function writeCard<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  card: ApprovalCard,
  key: PostKey | undefined,
  record?: RecordIds,
): Promise<SentRef> {
  const { id, attach } = await channel.sendCard(chat, card, key === undefined ? undefined : partKeyOf(key, 0));
  if (attach) {
    await record?.({ ids: [id] });
    await attach();
  }
  return { ids: [id] };
}

/**
 * Show an outcome on its card, or, when the card cannot be edited (deleted, too old), post it as
 * a message of the world's (once, under `key`) and record it the moment it exists.
 */
export async function writeOutcome<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  card: SentRef,
  outcome: ApprovalOutcome,
  key: PostKey | undefined,
  record?: RecordIds,
): Promise<"edited" | "posted"> {
  const cardId = card.ids[0];
  if (cardId !== undefined && (await channel.editCard(chat, cardId, outcome)) === "edited") return "edited";
  const part = await channel.renderOutcome(chat, outcome);
  const id = await sendPartOnce(channel, chat, worldAuthor, part, key === undefined ? {} : { key: partKeyOf(key, 0) });
  await record?.({ ids: [id] });
  return "posted";
}

/** Remove posted parts (an abandoned draft). A part already gone is no error (the channel's rule). */
export async function deleteParts<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  sent: SentRef,
  author: Author = worldAuthor,
): Promise<void> {
  for (const id of sent.ids) await channel.deletePart(chat, author, id);
}

function sameIds(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((id, index) => id === right[index]);
}
