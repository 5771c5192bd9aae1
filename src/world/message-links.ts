import type { ChannelAdapter } from "./channel-adapter.js";
import type { ChatRef } from "./chat-ref.js";

/** Capability: a channel whose posted messages have addresses people can open (a card's link). */
export interface MessageLinks {
  /** The link to a posted message, or undefined where this chat has none (a private chat). */
  messageLink(chat: ChatRef, platformMessageId: string): string | undefined;
}

export function hasMessageLinks(adapter: ChannelAdapter): adapter is ChannelAdapter & MessageLinks {
  return typeof (adapter as Partial<MessageLinks>).messageLink === "function";
}
