import type { Logger } from "../../src/log/logger.js";
import type { MessageStream, OutboundMention, SentRef, StreamObserver } from "../../src/world/channel-adapter.js";
import { partOnce } from "../../src/world/channel-adapter.js";
import type { DiscordClock } from "./options.js";
import type { Poster } from "./poster.js";
import { renderText } from "./render.js";
import type { RenderedMentions } from "./render-mentions.js";

/** What a stream needs besides where it posts. */
export interface StreamSetup {
  clock: DiscordClock;
  /** Minimum time between two changes of the answer's messages. */
  intervalMs: number;
  logger: Logger;
  /** Told about every message the answer gets, the moment it exists (crash-safe drafts). */
  observer?: StreamObserver;
  /** The final text's mentions in Discord's form. */
  renderMentions(text: string, mentions: readonly OutboundMention[] | undefined): RenderedMentions;
  /** Components on the part being written (a Stop button); the settled answer has none. */
  liveComponents?: unknown[];
}

/**
 * A streamed answer on Discord: sent, then edited at most once per `intervalMs` as the text
 * grows. A part that outgrows 2,000 characters is settled and the text goes on in a new
 * message. Discord's rate-limit buckets and 429 waits are left to discord.js's REST client.
 */
export class DiscordMessageStream implements MessageStream {
  private latest = "";
  private shownText = "";
  private readonly sent: { id: string; content: string; live?: boolean }[] = [];
  private pumping: Promise<void> | undefined;
  private waiting = false;
  private closed = false;
  private lastChangeAt: number | undefined;
  private readonly timers = new AbortController();

  private readonly clock: DiscordClock;
  private readonly logger: Logger;

  constructor(
    private readonly poster: Poster,
    private readonly setup: StreamSetup,
  ) {
    this.clock = setup.clock;
    this.logger = setup.logger;
  }

  update(textSoFar: string): void {
    if (this.closed) return;
    this.latest = textSoFar;
    this.schedule();
  }

  async finish(finalText: string, mentions?: readonly OutboundMention[]): Promise<SentRef> {
    this.close();
    await this.pumping;
    const wait = this.waitMs();
    if (wait > 0 && this.sent.length > 0) await this.clock.sleep(wait);
    const rendered = this.setup.renderMentions(finalText, mentions);
    await this.flush(rendered.text, true, rendered.userIds);
    return { ids: this.sent.map((part) => part.id) };
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
        await this.poster.delete(part.id);
      } catch (error) {
        this.logger.warn({ err: error, messageId: part.id }, "could not remove an abandoned streamed message");
      }
    }
  }

  /** Resolves when no change is in flight (tests step their clock with it). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pumping) await this.pumping;
  }

  private close(): void {
    this.closed = true;
    this.timers.abort();
  }

  private waitMs(): number {
    if (this.lastChangeAt === undefined) return 0;
    return Math.max(0, this.lastChangeAt + this.setup.intervalMs - this.clock.now());
  }

  private schedule(): void {
    if (this.closed || this.pumping || this.waiting || this.latest === this.shownText) return;
    if (this.latest.trim() === "") return;
    const wait = this.waitMs();
    if (wait > 0) {
      this.waiting = true;
      this.clock.sleep(wait, this.timers.signal).then(
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
      .catch((error: unknown) => this.logger.warn({ err: error }, "streamed message update failed"))
      .finally(() => {
        this.pumping = undefined;
        this.schedule();
      });
  }

  /** Bring the chat in line with `text`: new parts sent, changed parts edited, extra parts removed. */
  private async flush(text: string, final: boolean, allowedUserIds: string[] = []): Promise<void> {
    const parts = renderText(text, this.poster.prefixName);
    this.shownText = text;
    this.lastChangeAt = this.clock.now();
    const liveComponents = this.setup.liveComponents;
    for (const [index, content] of parts.entries()) {
      const shown = this.sent[index];
      // Only the part still being written carries the live components.
      const live = liveComponents !== undefined && !final && index === parts.length - 1;
      const components = live ? liveComponents : [];
      if (!shown) {
        const body = { content, allowedUserIds, ...(live ? { components } : {}) };
        const id = await this.poster.send(body, partOnce(this.setup.observer?.postKey, index));
        this.sent.push({ id, content, ...(live ? { live } : {}) });
        // Recorded before the answer goes on: whoever finishes it edits these messages.
        await this.setup.observer?.posted({ ids: this.sent.map((part) => part.id) });
      } else if (shown.content !== content || (shown.live ?? false) !== live) {
        await this.poster.edit(shown.id, { content, allowedUserIds, components });
        shown.content = content;
        shown.live = live;
      }
    }
    if (!final) return;
    // A draft left by an earlier process may have had more parts than the final text.
    for (const extra of this.sent.splice(parts.length)) {
      await this.poster
        .delete(extra.id)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, messageId: extra.id }, "could not remove a surplus streamed part"),
        );
    }
  }
}
