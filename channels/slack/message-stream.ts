import type { Logger } from "../../src/log/logger.js";
import type { MessageStream, OutboundMention, SentRef, StreamObserver } from "../../src/world/channel-adapter.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { Block, PostIdentity, SlackOutbound } from "./api.js";
import type { SlackClock } from "./options.js";
import { postOnce } from "./post-once.js";
import { renderText } from "./render.js";

export interface EditStreamSetup {
  outbound: SlackOutbound;
  clock: SlackClock;
  logger: Logger;
  chat: ChatRef;
  identity: PostIdentity;
  /** Bold name in front of each part (no `chat:write.customize`). */
  prefix: string;
  /** Minimum time between two changes of one message. */
  intervalMs: number;
  /** Told where the text is each time a message is posted for it (the world stores it). */
  observer?: StreamObserver;
  /** Blocks for the part being written (its text and a Stop button), or undefined for text only. */
  liveBlocks?(text: string): Block[] | undefined;
}

/**
 * A streamed answer shown by editing: the first text is posted, then `chat.update` brings the
 * message in line with the text so far at most once per interval. A part that outgrows one
 * message is settled and the text goes on in a new one.
 */
export class SlackEditStream implements MessageStream {
  private latest = "";
  private shown = "";
  private readonly sent: { ts: string; text: string; at: number; live?: boolean }[] = [];
  private pumping: Promise<void> | undefined;
  private waiting = false;
  private closed = false;
  private readonly timers = new AbortController();

  constructor(private readonly setup: EditStreamSetup) {}

  update(textSoFar: string): void {
    if (this.closed) return;
    this.latest = textSoFar;
    this.schedule();
  }

  async finish(finalText: string, mentions: readonly OutboundMention[] = []): Promise<SentRef> {
    this.close();
    await this.pumping;
    const wait = this.waitMs();
    if (wait > 0) await this.setup.clock.sleep(wait);
    await this.flush(finalText, true, mentions);
    return { ids: this.sent.map((part) => part.ts) };
  }

  async hold(): Promise<void> {
    this.close();
    await this.pumping;
  }

  async abort(): Promise<void> {
    this.close();
    await this.pumping;
    for (const part of this.sent) {
      try {
        await this.setup.outbound.delete(this.setup.chat, part.ts);
      } catch (error) {
        this.setup.logger.warn({ err: error, ts: part.ts }, "could not remove an abandoned streamed message");
      }
    }
  }

  private close(): void {
    this.closed = true;
    this.timers.abort();
  }

  /** Time until the last shown message may change again. */
  private waitMs(): number {
    const last = this.sent.at(-1);
    if (!last) return 0;
    return Math.max(0, last.at + this.setup.intervalMs - this.setup.clock.now());
  }

  private schedule(): void {
    if (this.closed || this.pumping || this.waiting || this.latest === this.shown || this.latest.trim() === "") return;
    const wait = this.waitMs();
    if (wait > 0) {
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
    this.pumping = this.flush(this.latest, false)
      .catch((error: unknown) => this.setup.logger.warn({ err: error }, "streamed slack message update failed"))
      .finally(() => {
        this.pumping = undefined;
        this.schedule();
      });
  }

  private async flush(text: string, final: boolean, mentions: readonly OutboundMention[] = []): Promise<void> {
    const { outbound, chat, identity, prefix, clock, observer } = this.setup;
    this.shown = text;
    const parts = renderText(text, prefix, undefined, mentions);
    const settled = final ? parts.length : Math.max(parts.length - 1, this.sent.length);
    for (const [index, part] of parts.entries()) {
      if (index > settled) break;
      const shown = this.sent[index];
      // The part still being written carries the live blocks (a Stop button); settled parts are text.
      const blocks = !final && index === parts.length - 1 ? this.setup.liveBlocks?.(part) : undefined;
      const live = blocks !== undefined;
      if (!shown) {
        const post = { text: part, identity, ...(blocks === undefined ? {} : { blocks }) };
        const ts = await postOnce(outbound, this.setup.logger, chat, post, observer?.postKey, index);
        this.sent.push({ ts, text: part, at: clock.now(), ...(live ? { live } : {}) });
        await observer?.posted({ ids: this.sent.map((each) => each.ts) });
      } else if (shown.text !== part || (shown.live ?? false) !== live) {
        await outbound.update(chat, shown.ts, part, blocks);
        shown.text = part;
        shown.at = clock.now();
        shown.live = live;
      }
    }
    if (final) {
      // A final text shorter than what was streamed: parts beyond it go.
      for (const extra of this.sent.splice(parts.length)) await outbound.delete(chat, extra.ts);
    }
  }
}
