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

/**
 * One post named the same on every run of the step that makes it, so that a platform that can
 * tell a post it already took shows it once: Discord gets a nonce made from it, Slack stores it
 * as the message's metadata and is asked for it (docs/architecture.md, "The window that remains").
 */
export interface PostKey {
  /** The world's name of the post (a message id, `card:<approval>`); adapters add the part's index. */
  id: string;
  /**
   * A run before this one may have posted it and died (or lost the answer) before its id was
   * stored: the step's job is on a later attempt, or the call is being tried again. Only then
   * does an adapter look for it before posting; a first attempt costs no extra platform call.
   */
  mayExist: boolean;
  /** No post of it is older than this (its event was stored then): bounds a look-up. */
  since: Date;
  /**
   * Whether a platform message is stored as (a part of) a post the world already knows: such a
   * message is never this post, however alike it looks. An adapter that finds an earlier run's
   * post by its author and text rather than by its key (Discord) asks before reusing one, so
   * that the same agent's previous answer ("I'll check." for a stream that began "I") is never
   * taken for this one. Called only while looking, so a first attempt costs nothing.
   */
  isStored?: (platformMessageId: string) => Promise<boolean>;
}

/** The key of one part of a post (long texts are split; each part is its own platform message). */
export function partKey(postKey: PostKey, part: number): string {
  return `${postKey.id}:${part}`;
}
