import type { Logger } from "../../src/log/logger.js";
import { type ChatRef, earliestPostTime, type PartKey } from "../../src/world/channel-adapter.js";
import { postEventType, type SlackOutbound } from "./api.js";

/** A Slack ts (`seconds.micros`) no later than `time`, less the clock skew allowance. */
export function tsBefore(time: Date): string {
  return (earliestPostTime({ since: time }) / 1000).toFixed(6);
}

/**
 * The app's message an earlier run posted of the part `key` names (docs/architecture.md,
 * "Posting once"): every post carries its key as the message's metadata, so it is found by it
 * since the key's bound. A look-up that fails (missing history scope, rate limit) is a warn log
 * line and finds nothing: the caller posts.
 */
export async function findEarlierPost(
  outbound: SlackOutbound,
  logger: Logger,
  chat: ChatRef,
  key: PartKey,
): Promise<string | undefined> {
  try {
    const found = await outbound.findPosted(chat, key.key, tsBefore(key.since));
    if (found !== undefined) logger.info({ key: key.key, ts: found }, "a post an earlier run made is reused");
    return found;
  } catch (error) {
    logger.warn(
      { err: error, key: key.key, channel: chat.channel },
      "could not look for an earlier run's post (channels:history, groups:history, im:history, mpim:history?); posting it",
    );
    return undefined;
  }
}

/**
 * Before a native stream starts again (`chat.startStream` takes no metadata, so its message
 * cannot carry its key), and before its answer is posted whole: when an earlier run may have
 * started it, remove the app's newest message in the thread since the post's bound that
 * carries no key and begins with this agent's name, the stream that run left half-written.
 * Matched by app, thread, position and name, not by key, and never one stored as another
 * post's (`PartKey.isStored`). A failed look-up or removal is a warn log line.
 */
export async function removeEarlierNativeStream(
  outbound: SlackOutbound,
  logger: Logger,
  chat: ChatRef,
  stream: { authorName: string; key: PartKey | undefined },
): Promise<void> {
  const { authorName, key } = stream;
  if (!key?.mayExist) return;
  try {
    const botId = await outbound.ownBotId(chat);
    const messages = await outbound.recentMessages(chat, tsBefore(key.since));
    const names = [`**${authorName}:**`, `*${authorName}:*`];
    const earlier = messages
      .filter(
        (message) =>
          message.bot_id === botId &&
          message.ts !== chat.thread &&
          message.metadata?.event_type !== postEventType &&
          names.some((name) => (message.text ?? "").startsWith(name)),
      )
      .sort((left, right) => Number(right.ts) - Number(left.ts))[0];
    if (earlier?.ts === undefined) return;
    if (await key.isStored?.(earlier.ts)) {
      logger.info({ key: key.key, ts: earlier.ts }, "the newest keyless post alike is another post's; kept");
      return;
    }
    logger.info({ key: key.key, ts: earlier.ts }, "removing the native stream an earlier run left");
    await outbound.stopStream(chat, earlier.ts).catch(() => undefined);
    await outbound.delete(chat, earlier.ts);
  } catch (error) {
    logger.warn(
      { err: error, channel: chat.channel },
      "could not look for a native stream an earlier run left; streaming anew",
    );
  }
}
