import type { ApprovalCard, ApprovalOutcome } from "../approval-types.js";
import type { ChannelClock } from "../channel/channel-clock.js";
import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";
import type { OutboundMention } from "../outbound/outbound-mention.js";
import type { OutboundText, SentRef } from "../outbound-text.js";
import type { PartKey, PostKey } from "./post-key.js";

/**
 * What a channel can do with one platform message, and nothing more (docs/architecture.md,
 * "Delivery"). The world's delivery module (`src/world/delivery/`) owns everything built on
 * these: the post-once protocol (keys, look-ups, recording ids before the next part), the
 * part writer (post, edit, delete surplus, card then attachment, card update or outcome post),
 * the one throttled post-then-edit stream with `hold`, and an answer's draft. A channel
 * renders, sends, edits and deletes; it never records an id or decides whether a post may
 * already exist.
 *
 * `Part` is the channel's own rendering of one platform message (Telegram HTML, Slack
 * mrkdwn and blocks, a Discord body); the world only carries it between these calls.
 */
export interface ChannelPrimitives<Part = unknown> {
  /**
   * `message` (Markdown, its mentions, the author's name where the platform cannot post under
   * it) as the parts the platform shows, each one platform message, in order. Never empty.
   */
  renderParts(chat: ChatRef, message: OutboundText): Promise<Part[]>;
  /** Whether two rendered parts show the same (an edit between them changes nothing). */
  samePart(left: Part, right: Part): boolean;
  /**
   * Post one part as `author` and return its platform id. With `key`, carry it where the
   * platform can (Slack metadata, Discord nonce) so that a repeat is told apart; `live` puts
   * the controls of an answer still being written on it (a Stop button).
   */
  sendPart(chat: ChatRef, author: Author, part: Part, options?: SendPartOptions): Promise<string>;
  /**
   * Make message `id` show `part` (`live` as in {@link sendPart}). `gone` when there is no such
   * message any more (someone deleted it): the writer then posts the part anew.
   */
  editPart(
    chat: ChatRef,
    author: Author,
    id: string,
    part: Part,
    options?: { live?: boolean },
  ): Promise<"edited" | "gone">;
  /** Remove message `id`. A message already gone is no error. */
  deletePart(chat: ChatRef, author: Author, id: string): Promise<void>;
  /**
   * Look for a post an earlier run made of the part `key` names (called only when
   * `key.mayExist`, before posting it): its id, and what it shows when the platform says (so
   * that an equal part is not edited). Undefined when there is none, or the look-up failed
   * (log it at warn: the caller posts). Without this, a repeat is caught only by what
   * `sendPart` does with the key.
   */
  findPosted?(
    chat: ChatRef,
    author: Author,
    key: PartKey,
    part: Part,
  ): Promise<{ id: string; shows?: Part } | undefined>;

  /**
   * Post an approval card with its buttons (as the platform's main identity: presses are read
   * there). `attach`, when the card carries more (its whole arguments as a file), is run by
   * the world once the card's id is recorded, so that a crash in between loses the file, never
   * posts the card twice.
   */
  sendCard(chat: ChatRef, card: ApprovalCard, key?: PartKey): Promise<{ id: string; attach?: () => Promise<void> }>;
  /** Show `outcome` on card `id` and take its buttons off; `gone` when it cannot be edited (deleted, too old). */
  editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone">;
  /** The outcome as one part, posted by the world (as the system author) when the card is gone. */
  renderOutcome(chat: ChatRef, outcome: ApprovalOutcome): Promise<Part>;

  /**
   * Post a file (an image a tool returned, a file it wrote to `outbox/`) as `author`, with its
   * caption, as the platform's file or photo message; returns its platform id. `key` as in
   * {@link sendPart}. Without this the world shows the file's name and a link where it has one.
   */
  sendFile?(chat: ChatRef, author: Author, file: OutboundFile, options?: SendPartOptions): Promise<string>;

  /**
   * How a streamed answer of `author` in `chat` is shown. `edit`: the world's post-then-edit
   * stream, no more than one change per `intervalMs` (per `paceKey` when several streams share
   * one budget, e.g. a Telegram chat; else per stream), with the platform's draft surface for
   * the part being written when `draft` is given (Telegram private chats). `native`: the
   * channel's own stream (Slack's `chat.startStream`, a terminal). `none`: posted whole.
   */
  streamMode(chat: ChatRef, author: Author): StreamMode<Part>;
}

export interface SendPartOptions {
  key?: PartKey;
  /** Platform message id to reply to (first part of a post only). */
  replyTo?: string;
  live?: boolean;
}

/** A file the world posts. `bytes` are already read and capped; `mimeType` is typed from them. */
export interface OutboundFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  caption?: string;
}

export type StreamMode<Part> =
  | {
      kind: "edit";
      intervalMs: number;
      paceKey?: string;
      draft?: DraftSurface<Part>;
      /**
       * The part being written carries controls (a Stop button) that `live` adds: a part is then
       * edited when it settles (or the answer is finished) even if its text is unchanged, to take
       * them off. Without it, `live` changes alone edit nothing.
       */
      liveControls?: boolean;
      /** The channel's clock (tests inject a manual one); the real clock when absent. */
      clock?: ChannelClock;
    }
  | { kind: "native"; open(setup: NativeStreamSetup): NativeStream }
  | { kind: "none" };

/**
 * A platform's own preview of a message being written, not a message (Telegram's
 * `sendMessageDraft`): it vanishes by itself, so nothing is recorded or deleted for it.
 * `show` throws when the platform refuses drafts here; the stream then edits messages instead
 * (and the channel should answer without `draft` from then on).
 */
export interface DraftSurface<Part> {
  show(part: Part): Promise<void>;
}

/** What the world hands a channel's own stream. */
export interface NativeStreamSetup {
  /** The answer's post key (where the stream's message can carry it), and whether an earlier run may have begun it. */
  key: PostKey | undefined;
  /** Tell the world where the answer is, the moment a platform message exists for it (awaited). */
  record(sent: SentRef): Promise<void>;
}

/** A channel's own stream of one answer; the world paces nothing for it. */
export interface NativeStream {
  /** The whole text so far (not a delta). Cheap to call often. */
  update(textSoFar: string): void;
  /** Show no further updates; resolve once a change in flight (and its record) is done. */
  hold(): Promise<void>;
  /** Settle the final text, mentions rendered; returns where it landed. */
  finish(finalText: string, mentions?: readonly OutboundMention[]): Promise<SentRef>;
  /** Remove what it showed (the answer was abandoned). */
  abort(): Promise<void>;
}
