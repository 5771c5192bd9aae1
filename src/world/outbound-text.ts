import type { PostKey } from "./delivery/post-key.js";
import type { Author } from "./message.js";
import type { OutboundMention } from "./outbound/outbound-mention.js";

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
  /**
   * The message's stored files, given only to a channel that cannot post files (no `sendFile`)
   * but can show them another way: the web console links each one (`GET /chat/file`).
   */
  files?: readonly OutboundFileRef[];
}

/** A stored file of a message, by the message's id and the file's name. */
export interface OutboundFileRef {
  messageId: string;
  name: string;
  mediaType: string;
}

/** Where a posted message landed: one platform id per part (long texts are split). */
export interface SentRef {
  ids: string[];
}

/**
 * Told where a message's text is each time the platform returns the id of a part while more
 * parts are still to be posted (a long text split), and before surplus parts are removed on an
 * edit. The world stores it before the adapter goes on, so that a re-run after a crash edits
 * those parts instead of posting them again. Adapters call it only between parts: the caller
 * records the whole `SentRef` itself right after the call returns.
 */
export interface PostObserver {
  posted(sent: SentRef): Promise<void>;
  /** What names this post across runs of its step (platforms that can tell a repeat use it). */
  readonly postKey?: PostKey;
}

/** A post's identity (docs/architecture.md, "Posting once"): the delivery's one type, under its old import path. */
export type { PostKey } from "./delivery/post-key.js";
