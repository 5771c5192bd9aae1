import type { Logger } from "../../log/logger.js";
import type { MessageStream } from "../channel-streaming.js";
import { type ChannelClock, systemClock } from "../channel/channel-clock.js";
import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";
import type { OutboundMention } from "../outbound/outbound-mention.js";
import type { SentRef } from "../outbound-text.js";
import { sendPartOnce, type RecordIds } from "./part-writer.js";
import { type PostKey, partKeyOf } from "./post-key.js";
import { withoutSlot } from "../queue/step-slots.js";
import type { PaceTable } from "./pace-table.js";
import type { ChannelPrimitives, StreamMode } from "./primitives.js";

export type EditMode<Part> = Extract<StreamMode<Part>, { kind: "edit" }>;

export interface EditStreamSetup<Part> {
  channel: ChannelPrimitives<Part>;
  chat: ChatRef;
  author: Author;
  mode: EditMode<Part>;
  /** The writer's table, for a mode with a `paceKey`. */
  pace: PaceTable;
  logger: Logger;
  /** The answer's key: each part is sent once under `partKeyOf(key, index)`. */
  key?: PostKey;
  /** Told (and awaited) whenever a platform message is added, so the world stores where the answer is. */
  record?: RecordIds;
}

interface ShownPart<Part> {
  id: string;
  part: Part;
  live: boolean;
}

/**
 * The one throttled post-then-edit stream (docs/architecture.md, "Streamed answers"): the first
 * text is posted, then the messages are brought in line with the text so far at most once per
 * interval. A part that outgrows one message is settled and the text goes on in a new one; only
 * the last part is `live`. With the platform's draft surface (Telegram private chats) the part
 * being written is shown as a draft and only settled parts are messages, until the draft is
 * refused (then it edits). Every message it adds is recorded before it goes on.
 */
export class EditStream<Part> implements MessageStream {
  private latest = "";
  private shownText = "";
  private readonly sent: ShownPart<Part>[] = [];
  private drafting: boolean;
  private lastDraft: Part | undefined;
  private lastChangeAt: number | undefined;
  private pumping: Promise<void> | undefined;
  private waiting = false;
  private closed = false;
  private readonly timers = new AbortController();
  private readonly clock: ChannelClock;

  constructor(private readonly setup: EditStreamSetup<Part>) {
    this.drafting = setup.mode.draft !== undefined;
    this.clock = setup.mode.clock ?? systemClock;
  }

  update(textSoFar: string): void {
    if (this.closed) return;
    this.latest = textSoFar;
    this.schedule();
  }

  async finish(finalText: string, mentions?: readonly OutboundMention[]): Promise<SentRef> {
    this.close();
    await this.pumping;
    const { channel, chat, author } = this.setup;
    const parts = await channel.renderParts(chat, { author, text: finalText, ...(mentions ? { mentions } : {}) });
    if (this.sent.length > 0) {
      // The chat already shows the final text (no controls to take off either): nothing to wait for.
      if (this.shows(parts)) return this.ids();
      // The final edit is due at the interval's end: the step waits for it without its queue
      // slot (src/world/queue/step-slots.ts), and its delivery is done only once the edit is made.
      const wait = this.drafting ? 0 : this.waitMs();
      if (wait > 0) await withoutSlot(() => this.clock.sleep(wait));
    }
    await this.flush(parts, true);
    return this.ids();
  }

  async hold(): Promise<void> {
    this.close();
    await this.pumping;
  }

  /** Remove the messages it posted (a draft vanishes by itself). */
  async abort(): Promise<void> {
    this.close();
    await this.pumping;
    const { channel, chat, author, logger } = this.setup;
    for (const part of this.sent.splice(0)) {
      try {
        await channel.deletePart(chat, author, part.id);
      } catch (error) {
        logger.warn({ err: error, messageId: part.id }, "could not remove an abandoned streamed message");
      }
    }
  }

  /** Resolves when no change is in flight (tests step a manual clock with it). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pumping) await this.pumping;
  }

  private ids(): SentRef {
    return { ids: this.sent.map((part) => part.id) };
  }

  private close(): void {
    this.closed = true;
    this.timers.abort();
  }

  private waitMs(): number {
    const { mode, pace } = this.setup;
    const now = this.clock.now();
    if (mode.paceKey !== undefined) return pace.waitMs(mode.paceKey, mode.intervalMs, now);
    if (this.lastChangeAt === undefined) return 0;
    return Math.max(0, this.lastChangeAt + mode.intervalMs - now);
  }

  private markChange(): void {
    const now = this.clock.now();
    this.lastChangeAt = now;
    if (this.setup.mode.paceKey !== undefined) this.setup.pace.mark(this.setup.mode.paceKey, now);
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
    const text = this.latest;
    this.shownText = text;
    const { channel, chat, author } = this.setup;
    this.markChange();
    this.pumping = channel
      .renderParts(chat, { author, text })
      .then((parts) => this.flush(parts, false, true))
      .catch((error: unknown) => this.setup.logger.warn({ err: error }, "streamed message update failed"))
      .finally(() => {
        this.pumping = undefined;
        this.schedule();
      });
  }

  /** Whether the messages show exactly `parts`, none of them live. */
  private shows(parts: Part[]): boolean {
    const { channel } = this.setup;
    return (
      parts.length === this.sent.length &&
      parts.every((part, index) => {
        const shown = this.sent[index];
        return shown !== undefined && !shown.live && channel.samePart(shown.part, part);
      })
    );
  }

  /** Bring the chat in line with `parts`: settled parts sent or edited, the last one shown; at the end, surplus removed. */
  private async flush(parts: Part[], final: boolean, marked = false): Promise<void> {
    const { channel, chat, author, mode, logger } = this.setup;
    if (!marked) this.markChange();
    if (this.drafting && mode.draft) {
      // Parts before the last are complete: they become messages; the last one is a draft.
      const settledCount = final ? parts.length : parts.length - 1;
      for (let index = this.sent.length; index < settledCount; index += 1) {
        const part = parts[index];
        if (part !== undefined) await this.add(index, part, false);
      }
      const last = parts.at(-1);
      if (final || last === undefined) return;
      if (this.lastDraft !== undefined && channel.samePart(this.lastDraft, last)) return;
      try {
        await mode.draft.show(last);
        this.lastDraft = last;
        return;
      } catch (error) {
        logger.info({ err: error }, "drafts unavailable; editing instead");
        this.drafting = false;
      }
    }
    for (const [index, part] of parts.entries()) {
      const shown = this.sent[index];
      // The part still being written carries the live controls; settled parts carry none.
      const live = mode.liveControls === true && !final && index === parts.length - 1;
      if (!shown) {
        await this.add(index, part, live);
      } else if (!channel.samePart(shown.part, part) || shown.live !== live) {
        await channel.editPart(chat, author, shown.id, part, live ? { live } : {});
        shown.part = part;
        shown.live = live;
      }
    }
    if (!final) return;
    // A final text shorter than what was streamed: the parts beyond it go.
    for (const extra of this.sent.splice(parts.length)) {
      await channel
        .deletePart(chat, author, extra.id)
        .catch((error: unknown) =>
          logger.warn({ err: error, messageId: extra.id }, "could not remove a surplus streamed part"),
        );
    }
  }

  /** Send part `index` (once, under its key) and record where the answer now is before going on. */
  private async add(index: number, part: Part, live: boolean): Promise<void> {
    const { channel, chat, author, key, record } = this.setup;
    const id = await sendPartOnce(channel, chat, author, part, {
      ...(key === undefined ? {} : { key: partKeyOf(key, index) }),
      ...(live ? { live } : {}),
    });
    this.sent.push({ id, part, live });
    await record?.(this.ids());
  }
}
