import type { PostKey, SentRef } from "./outbound-text.js";
import type { OutboundMention } from "./outbound/outbound-mention.js";

/** A live message that grows while a model streams. The adapter throttles its edits itself. */
export interface MessageStream {
  /** The whole text so far (not a delta). Cheap to call often. */
  update(textSoFar: string): void;
  /** Settle the final text (split if long), mentions rendered; returns where it landed. */
  finish(finalText: string, mentions?: readonly OutboundMention[]): Promise<SentRef>;
  /** Remove or abandon the draft (the turn failed). */
  abort(): Promise<void>;
  /**
   * Show no further updates, and resolve once a change in flight is done (a message it posted
   * recorded through the observer). Called before the answer is published: its delivery may
   * run in another process, which must find every message this stream posted (else it posts
   * the answer anew beside a message still on its way). Streams that post nothing while the
   * model writes need not have it.
   */
  hold?(): Promise<void>;
}

/**
 * Told where a stream's text is, the moment a platform message exists for it (and again when
 * a part is added). The world stores it before the stream goes on, so that whoever finishes
 * the step (this process, the next one after a crash, another process) edits that message
 * instead of posting the answer again.
 */
export interface StreamObserver {
  posted(sent: SentRef): Promise<void>;
  /** The key of the message the stream will become (its first post carries it where the platform can). */
  readonly postKey?: PostKey;
}
