import { createHash } from "node:crypto";
import type { Logger } from "../../src/log/logger.js";
import { earliestPostTime, type PartKey } from "../../src/world/channel-adapter.js";
import type { DiscordApi, ReadMessage } from "./api.js";

/** Discord's nonce is at most 25 characters: a hash of the key, the same on every run. */
export function nonceOf(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 25);
}

/** Discord's epoch (2015-01-01T00:00:00Z): snowflakes count milliseconds from it, shifted 22 bits. */
const discordEpochMs = 1_420_070_400_000n;
/**
 * How many of the channel's newest messages a look-up reads (Discord's most). The earlier run's
 * post is among the newest: the chat's later posts wait behind it.
 */
const lookupLimit = 100;

/** The smallest snowflake of a message created at `time` (ms since 1970). */
export function snowflakeAt(time: number): string {
  return String((BigInt(Math.max(0, Math.floor(time))) - discordEpochMs) << 22n);
}

/**
 * A post that an earlier run may have made: the newest message `from` its author (the bot, or
 * a webhook under a name) since the post's bound, if its text and this one begin alike (the
 * earlier run may have posted a stream's first, shorter text; the caller then edits it). The
 * chat's later posts wait behind this one, so nothing of this author comes after it; but its
 * earlier ones are there, and a text like this one's ("I" begins "I'll check.") does not make
 * one of them this post: a message stored as another post's is never reused. With `match:
 * "unstored"` (an author whose every message is a post of this agent: a webhook under its
 * name) and the stored check at hand, the newest message not stored is this post whatever its
 * text: a turn step run again asks the model anew, and its new text need not begin like the
 * one the dead run streamed. Any failure of the look-up (missing Read Message History, a rate limit) answers undefined with a
 * warn log line, and the caller posts.
 */
export async function findEarlierPost(
  api: DiscordApi,
  channelId: string,
  from: (message: ReadMessage) => boolean,
  content: string,
  once: PartKey,
  logger: Logger,
  match: "alike" | "unstored" = "alike",
): Promise<{ id: string; content: string } | undefined> {
  try {
    const after = BigInt(snowflakeAt(earliestPostTime(once)));
    const messages = await api.newestMessages(channelId, lookupLimit);
    const since = messages.filter((message) => BigInt(message.id) > after && from(message));
    const newest = since.sort((left, right) => (BigInt(right.id) > BigInt(left.id) ? 1 : -1))[0];
    const shown = newest?.content ?? "";
    if (!newest) return undefined;
    const anyText = match === "unstored" && once.isStored !== undefined;
    if (!anyText && (shown === "" || !(shown.startsWith(content) || content.startsWith(shown)))) return undefined;
    if (await once.isStored?.(newest.id)) {
      logger.info({ key: once.key, messageId: newest.id }, "the newest post alike is another post's; posting this one");
      return undefined;
    }
    logger.info({ key: once.key, messageId: newest.id }, "a post an earlier run made is reused");
    return { id: newest.id, content: shown };
  } catch (error) {
    logger.warn(
      { err: error, key: once.key, channel: channelId },
      "could not look for an earlier run's post (Read Message History?); posting it",
    );
    return undefined;
  }
}
