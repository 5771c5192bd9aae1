import { GrammyError } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { Logger } from "../../src/log/logger.js";
import type { MessageStream, OutboundMention, SentRef, StreamObserver } from "../../src/world/channel-adapter.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import { type BotHandle, type TelegramOutbound, toPlatformError } from "./api.js";
import type { EditThrottle } from "./edit-throttle.js";
import type { TelegramClock } from "./options.js";
import { renderText } from "./render.js";

export interface MessageStreamSetup {
  outbound: TelegramOutbound;
  throttle: EditThrottle;
  clock: TelegramClock;
  logger: Logger;
  bot: BotHandle;
  chat: ChatRef;
  /** Bold name in front of each part (an agent posting through the main bot). */
  authorName?: string;
  /** Minimum time between two changes in this chat. */
  intervalMs: number;
  /** Non-zero draft id when `sendMessageDraft` should be tried (private chats); else 0. */
  draftId: number;
  /** Called when the server does not know `sendMessageDraft`, so later streams skip it. */
  onDraftsUnsupported(): void;
  /** The Markdown to render for a text (structured mentions as Telegram mentions). */
  prepare?(text: string, mentions?: readonly OutboundMention[]): string;
  /** Told (and awaited) whenever a real message is added, so the world can record it. */
  observer?: StreamObserver;
  /** Buttons on the live part while the answer is being written (a Stop button); gone at the end. */
  liveKeyboard?: InlineKeyboardMarkup;
}

/**
 * A streamed answer. In a private chat the growing text is shown as a native draft
 * (`sendMessageDraft`) and sent as real messages at the end; elsewhere a message is sent and
 * then edited. Changes are throttled per chat; every part that outgrows one message is
 * settled and the text continues in a new one.
 */
export class TelegramMessageStream implements MessageStream {
  private latest = "";
  private shownText = "";
  private readonly sent: { id: number; html: string; live?: boolean }[] = [];
  private lastDraftHtml = "";
  private draftMode: boolean;
  private pumping: Promise<void> | undefined;
  private waiting = false;
  private closed = false;
  private readonly timers = new AbortController();
  private readonly throttleKey: string;

  constructor(private readonly setup: MessageStreamSetup) {
    this.draftMode = setup.draftId !== 0;
    this.throttleKey = `${setup.bot.key}:${setup.chat.channel}`;
  }

  update(textSoFar: string): void {
    if (this.closed) return;
    this.latest = textSoFar;
    this.schedule();
  }

  async finish(finalText: string, mentions?: readonly OutboundMention[]): Promise<SentRef> {
    this.close();
    await this.pumping;
    const text = this.setup.prepare?.(finalText, mentions) ?? finalText;
    if (!this.draftMode && this.sent.length > 0) {
      // The chat already shows the final text (no buttons to take off either): nothing to wait for.
      if (this.showsFinal(text)) return { ids: this.sent.map((part) => String(part.id)) };
      const wait = this.setup.throttle.waitMs(this.throttleKey, this.setup.intervalMs);
      if (wait > 0) await this.setup.clock.sleep(wait);
    }
    await this.flush(text, true);
    return { ids: this.sent.map((part) => String(part.id)) };
  }

  async hold(): Promise<void> {
    this.close();
    await this.pumping;
  }

  async abort(): Promise<void> {
    this.close();
    await this.pumping;
    if (this.draftMode) return; // a draft vanishes by itself
    for (const part of this.sent) {
      try {
        await this.setup.outbound.delete(this.setup.bot, this.setup.chat, part.id);
      } catch (error) {
        this.setup.logger.warn({ err: error, messageId: part.id }, "could not remove an abandoned streamed message");
      }
    }
  }

  /** Resolves when no change is in flight (tests use it to step a manual clock). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pumping) await this.pumping;
  }

  private close(): void {
    this.closed = true;
    this.timers.abort();
  }

  private schedule(): void {
    if (this.closed || this.pumping || this.waiting || this.latest === this.shownText) return;
    if (this.latest.trim() === "") return;
    const wait = this.setup.throttle.waitMs(this.throttleKey, this.setup.intervalMs);
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
      .catch((error: unknown) => this.setup.logger.warn({ err: error }, "streamed message update failed"))
      .finally(() => {
        this.pumping = undefined;
        this.schedule();
      });
  }

  /** Bring the chat in line with `text`: settle finished parts, show the last one. */
  private async flush(text: string, final: boolean): Promise<void> {
    const { outbound, bot, chat, throttle } = this.setup;
    const parts = renderText(text, this.setup.authorName);
    this.shownText = text;
    throttle.record(this.throttleKey);
    // Parts before the last are complete: they never change again.
    const settledCount = final ? parts.length : parts.length - 1;
    if (this.draftMode) {
      for (let index = this.sent.length; index < settledCount; index += 1) {
        const part = parts[index];
        if (part) await this.record({ id: await outbound.send(bot, chat, part), html: part.html });
      }
      const last = parts.at(-1);
      if (final || !last || last.html === this.lastDraftHtml) return;
      if (await this.tryDraft(last.html)) return;
    }
    const keyboard = this.setup.liveKeyboard;
    for (const [index, part] of parts.entries()) {
      const shown = this.sent[index];
      // The part still being written carries the live buttons; settled parts carry none.
      const live = keyboard !== undefined && !final && index === parts.length - 1;
      if (!shown) {
        const id = await outbound.send(bot, chat, part, live ? { keyboard } : {});
        await this.record({ id, html: part.html, ...(live ? { live } : {}) });
      } else if (shown.html !== part.html || (shown.live ?? false) !== live) {
        await outbound.edit(bot, chat, shown.id, part, live ? keyboard : undefined);
        shown.html = part.html;
        shown.live = live;
      }
    }
  }

  /** True when the sent parts are exactly the final rendering of `text`, none with live buttons. */
  private showsFinal(text: string): boolean {
    const parts = renderText(text, this.setup.authorName);
    return (
      parts.length === this.sent.length &&
      parts.every((part, index) => this.sent[index]?.html === part.html && !this.sent[index]?.live)
    );
  }

  /** Remember a sent part and tell the observer where the stream's text now is. */
  private async record(part: { id: number; html: string; live?: boolean }): Promise<void> {
    this.sent.push(part);
    await this.setup.observer?.posted({ ids: this.sent.map((sent) => String(sent.id)) });
  }

  /** Show `html` as a draft; false (and edit mode from now on) when drafts do not work here. */
  private async tryDraft(html: string): Promise<boolean> {
    try {
      await this.setup.outbound.draft(this.setup.bot, this.setup.chat, this.setup.draftId, html);
      this.lastDraftHtml = html;
      return true;
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (cause instanceof GrammyError && (cause.error_code === 404 || /method not found/i.test(cause.description))) {
        this.setup.onDraftsUnsupported();
      }
      this.setup.logger.info(
        { err: toPlatformError(error, "sendMessageDraft") },
        "drafts unavailable; editing instead",
      );
      this.draftMode = false;
      return false;
    }
  }
}
