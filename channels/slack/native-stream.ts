import type { Logger } from "../../src/log/logger.js";
import {
  type ChannelClock,
  type ChatRef,
  type NativeStream,
  type NativeStreamSetup,
  type PartKey,
  partKeyOf,
  type SentRef,
} from "../../src/world/channel-adapter.js";
import type { SlackOutbound } from "./api.js";
import { removeEarlierNativeStream } from "./post-once.js";

export interface SlackNativeStreamSetup extends NativeStreamSetup {
  outbound: SlackOutbound;
  clock: ChannelClock;
  logger: Logger;
  /** A chat with a thread: Slack streams only into threads. */
  chat: ChatRef & { thread: string };
  /** The agent's name: native streams show the app's identity, so the text starts with it. */
  authorName: string;
  recipient: { user?: string; team?: string };
  intervalMs: number;
}

/**
 * A streamed answer through Slack's own streams (`chat.startStream`, `appendStream`,
 * `stopStream`): Slack renders the Markdown itself. Appends are batched to at most one per
 * interval; a final text that does not continue what was streamed replaces it.
 */
export class SlackNativeStream implements NativeStream {
  private ts: string | undefined;
  private sentText = "";
  private latest = "";
  private lastAt = 0;
  private pumping: Promise<void> | undefined;
  private waiting = false;
  private closed = false;
  private readonly timers = new AbortController();
  private readonly prefix: string;
  /** The key of the stream's message (its only part), when the world names the answer. */
  private readonly key: PartKey | undefined;

  constructor(private readonly setup: SlackNativeStreamSetup) {
    this.prefix = `**${setup.authorName}:** `;
    this.key = setup.key === undefined ? undefined : partKeyOf(setup.key, 0);
  }

  update(textSoFar: string): void {
    if (this.closed) return;
    this.latest = this.prefix + textSoFar;
    this.schedule();
  }

  async finish(finalText: string): Promise<SentRef> {
    await this.hold();
    const text = this.prefix + finalText;
    const { outbound, chat } = this.setup;
    // The settled stream carries its key: found again by it, never taken for one a crash left.
    const key = this.key?.key;
    if (this.ts === undefined) {
      this.ts = await this.start(text);
      await outbound.stopStream(chat, this.ts, undefined, key);
    } else if (text.startsWith(this.sentText)) {
      const rest = text.slice(this.sentText.length);
      await outbound.stopStream(chat, this.ts, rest === "" ? undefined : rest, key);
    } else {
      await outbound.stopStream(chat, this.ts, undefined, key);
      await outbound.update(chat, this.ts, text);
    }
    return { ids: [this.ts] };
  }

  /** No further appends; resolves once the one in flight is done. */
  async hold(): Promise<void> {
    this.closed = true;
    this.timers.abort();
    await this.pumping;
  }

  async abort(): Promise<void> {
    await this.hold();
    if (this.ts === undefined) return;
    try {
      await this.setup.outbound.stopStream(this.setup.chat, this.ts);
      await this.setup.outbound.delete(this.setup.chat, this.ts);
    } catch (error) {
      this.setup.logger.warn({ err: error, ts: this.ts }, "could not remove an abandoned slack stream");
    }
  }

  private schedule(): void {
    if (this.closed || this.pumping || this.waiting || this.latest === this.sentText) return;
    const wait = Math.max(0, this.lastAt + this.setup.intervalMs - this.setup.clock.now());
    if (this.ts !== undefined && wait > 0) {
      this.waiting = true;
      this.setup.clock.sleep(wait, this.timers.signal).then(
        () => {
          this.waiting = false;
          this.schedule();
        },
        () => {
          this.waiting = false;
        },
      );
      return;
    }
    this.pumping = this.push(this.latest)
      .catch((error: unknown) => this.setup.logger.warn({ err: error }, "slack stream append failed"))
      .finally(() => {
        this.pumping = undefined;
        this.schedule();
      });
  }

  /** Start the stream (an earlier run's half-written one removed first), recorded at once. */
  private async start(text: string): Promise<string> {
    const { outbound, chat, logger, authorName } = this.setup;
    await removeEarlierNativeStream(outbound, logger, chat, { authorName, key: this.key });
    const ts = await outbound.startStream(chat, chat.thread, text, this.setup.recipient);
    this.sentText = text;
    await this.setup.record({ ids: [ts] });
    return ts;
  }

  private async push(text: string): Promise<void> {
    const { outbound, chat, clock } = this.setup;
    this.lastAt = clock.now();
    if (this.ts === undefined) {
      this.ts = await this.start(text);
      return;
    }
    // Model text only grows; anything else waits for finish() to replace the message.
    if (!text.startsWith(this.sentText)) return;
    const delta = text.slice(this.sentText.length);
    if (delta === "") return;
    await outbound.appendStream(chat, this.ts, delta);
    this.sentText = text;
  }
}
