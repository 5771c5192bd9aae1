import type { Logger } from "../../src/log/logger.js";
import { earliestPostTime, type PostKey, partKey, partOnce } from "../../src/world/channel-adapter.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import { type Block, type PostIdentity, postEventType, type SlackOutbound } from "./api.js";

/** A Slack ts (`seconds.micros`) no later than `time`, less the clock skew allowance. */
export function tsBefore(time: Date): string {
  return (earliestPostTime({ since: time }) / 1000).toFixed(6);
}

/**
 * Post part `index` of the post `postKey` names (docs/architecture.md, "The window that
 * remains"): always with its key as the message's metadata; when an earlier run may have posted
 * it (`mayExist`), first look for the app's message carrying that key and, found, make it show
 * this text (an earlier run may have posted a stream's first, shorter text) instead of posting.
 * A look-up that fails (missing history scope, rate limit) posts, with a warn log line.
 */
export async function postOnce(
  outbound: SlackOutbound,
  logger: Logger,
  chat: ChatRef,
  post: { text: string; identity?: PostIdentity; blocks?: Block[] },
  postKey: PostKey | undefined,
  index: number,
): Promise<string> {
  const once = partOnce(postKey, index);
  const key = once?.key;
  if (once?.mayExist) {
    let found: string | undefined;
    try {
      found = await outbound.findPosted(chat, once.key, tsBefore(once.since));
    } catch (error) {
      logger.warn(
        { err: error, key, channel: chat.channel },
        "could not look for an earlier run's post (channels:history, groups:history, im:history, mpim:history?); posting it",
      );
    }
    if (found !== undefined) {
      logger.info({ key, ts: found }, "a post an earlier run made is reused");
      await outbound.update(chat, found, post.text, post.blocks);
      return found;
    }
  }
  return outbound.post(chat, post.text, post.identity, post.blocks, key);
}

/**
 * Before a native stream starts again (`chat.startStream` takes no metadata, so its message
 * cannot carry its key): when an earlier run may have started it, remove the app's newest
 * message in the thread since the post's bound that carries no key and begins with this
 * agent's name, the stream that run left half-written. Matched by app, thread, position and
 * name, not by key, and never one stored as another post's (`PostKey.isStored`). A failed
 * look-up or removal is a warn log line.
 */
export async function removeEarlierNativeStream(
  outbound: SlackOutbound,
  logger: Logger,
  chat: ChatRef,
  stream: { authorName: string; postKey: PostKey | undefined },
): Promise<void> {
  const { authorName, postKey } = stream;
  if (!postKey?.mayExist) return;
  try {
    const botId = await outbound.ownBotId();
    const messages = await outbound.recentMessages(chat, tsBefore(postKey.since));
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
    if (await postKey.isStored?.(earlier.ts)) {
      logger.info(
        { key: partKey(postKey, 0), ts: earlier.ts },
        "the newest keyless post alike is another post's; kept",
      );
      return;
    }
    logger.info({ key: partKey(postKey, 0), ts: earlier.ts }, "removing the native stream an earlier run left");
    await outbound.stopStream(chat, earlier.ts).catch(() => undefined);
    await outbound.delete(chat, earlier.ts);
  } catch (error) {
    logger.warn(
      { err: error, channel: chat.channel },
      "could not look for a native stream an earlier run left; streaming anew",
    );
  }
}
