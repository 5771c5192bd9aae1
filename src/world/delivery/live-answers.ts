import type { MessageStream } from "../channel-streaming.js";

/** How long a held stream waits for its delivery in this process before it is forgotten. */
const defaultTtlMs = 10 * 60_000;

/**
 * The streams of answers published from this process, held, by the message id they become
 * (docs/architecture.md, "An answer out"). The delivery that runs here takes its stream and
 * settles it; an answer discarded removes its own. A delivery run by another process finds the
 * answer through the draft the stream recorded (every post of a stream is recorded before it is
 * published: `hold`), so an entry never taken here is only forgotten, after `ttlMs`.
 */
export class LiveAnswers {
  private readonly entries = new Map<string, { stream: MessageStream; at: number }>();

  constructor(
    private readonly ttlMs = defaultTtlMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** Hand a held stream to the delivery of message `messageId`. */
  put(messageId: string, stream: MessageStream): void {
    this.sweep();
    this.entries.set(messageId, { stream, at: this.now() });
  }

  /** The stream the delivery of `messageId` settles, if this process holds it; it is removed. */
  take(messageId: string): MessageStream | undefined {
    this.sweep();
    const entry = this.entries.get(messageId);
    this.entries.delete(messageId);
    return entry?.stream;
  }

  /** Forget the stream of `messageId` (its answer was discarded). */
  drop(messageId: string): void {
    this.entries.delete(messageId);
  }

  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [messageId, entry] of this.entries) {
      if (now - entry.at >= this.ttlMs) this.entries.delete(messageId);
    }
  }
}
