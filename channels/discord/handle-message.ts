import { assertNever } from "../../src/errors/assert-never.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChatRef, InboundSink, ChannelClock } from "../../src/world/channel-adapter.js";
import type { ChatLocator } from "./chat-locator.js";
import { deliverToWorld } from "./deliver-to-world.js";
import type { MentionDirectory } from "./mentions.js";
import { messageContentAdvice } from "./message-content-intent.js";
import { channelIdOf, type OwnIdentities, parseMessage } from "./parse.js";
import type { ThreadRoots } from "./thread-roots.js";

/** What handling a gateway message needs from the connected adapter. */
export interface MessageContext {
  sink: InboundSink;
  locator: ChatLocator;
  /** Read when the message is parsed: the directory and own identities are rebuilt on (re)connect. */
  directory: () => MentionDirectory;
  own: () => OwnIdentities;
  /** The host attachments are downloaded from (Discord's CDN, or the configured API's host). */
  attachmentHost: string;
  threadRoots: ThreadRoots;
  /** True the first time only: a message without text (no content intent) is warned about once. */
  firstMissingContent: () => boolean;
  logger: Logger;
  clock: ChannelClock;
}

/** One `MESSAGE_CREATE`: its chat found, parsed, its thread's root attached, handed to the world. */
export async function handleMessage(payload: unknown, context: MessageContext): Promise<void> {
  const { sink, locator, logger } = context;
  const { id: messageId, channelId, guildId } = channelIdOf(payload);
  if (channelId === undefined) {
    logger.warn({ messageId }, "discord message without a channel skipped");
    return;
  }
  let chat: ChatRef;
  try {
    chat = await locator.chatOf(channelId, guildId);
  } catch (error) {
    logger.error(
      { err: error, channel: channelId, messageId },
      "discord message skipped: its channel could not be read",
    );
    return;
  }
  const directory = context.directory();
  const own = context.own();
  const parsed = parseMessage(payload, chat, directory, own, context.attachmentHost);
  switch (parsed.kind) {
    case "message": {
      const message = parsed.message;
      if (chat.thread !== undefined && message.ownEcho !== true && message.platformMessageId !== chat.thread) {
        const root = await context.threadRoots.rootOf(chat, directory, own);
        if (root) message.threadRoot = root;
      }
      await deliverToWorld(sink, message, logger, context.clock);
      return;
    }
    case "own":
      logger.debug({ channel: channelId, messageId, reason: parsed.reason }, "own discord post ignored");
      return;
    case "ignored":
      if (/content intent/.test(parsed.reason) && context.firstMissingContent()) {
        logger.warn({ channel: channelId }, `a discord message arrived without text: ${messageContentAdvice}`);
      }
      logger.debug({ channel: channelId, messageId, reason: parsed.reason }, "discord message ignored");
      return;
    case "invalid":
      logger.warn({ channel: channelId, messageId, reason: parsed.reason }, "malformed discord message skipped");
      return;
    default:
      assertNever(parsed, "parsed message");
  }
}
