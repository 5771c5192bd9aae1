import type { ChatRef } from "../../src/world/channel-adapter.js";

/**
 * `https://t.me/c/<chat>/<message>` for a message in a supergroup (ids `-100…`), with the topic
 * in a forum; undefined for private chats and basic groups, which have no message links.
 */
export function telegramMessageLink(chat: ChatRef, platformMessageId: string): string | undefined {
  const match = /^-100(\d+)$/.exec(chat.channel);
  if (!match || !/^\d+$/.test(platformMessageId)) return undefined;
  const topic = chat.thread === undefined ? "" : `${chat.thread}/`;
  return `https://t.me/c/${match[1]}/${topic}${platformMessageId}`;
}
