import type { Author } from "./message.js";
import type { OutboundMention } from "./outbound-mention.js";

/**
 * A message the world asks a channel to post. `text` is Markdown; the channel renders it,
 * including each of `mentions` as the platform's own mention.
 */
export interface OutboundText {
  /**
   * Who speaks. For an agent, `displayName` and `avatarUrl` are its configured identity: post
   * under them where the platform allows (persona, webhook, own bot), else lead the text with
   * the display name in bold.
   */
  author: Author;
  text: string;
  /** People and agents named in `text` (each `text` occurrence of a mention is rendered). */
  mentions?: readonly OutboundMention[];
  /** Platform message id to reply to, when the platform threads replies. */
  replyTo?: string;
}

/** Where a posted message landed: one platform id per part (long texts are split). */
export interface SentRef {
  ids: string[];
}
