import { Api, GrammyError, HttpError, InputFile, type Transformer } from "grammy";
import type { InlineKeyboardMarkup, UserFromGetMe } from "grammy/types";
import { NetworkError, PlatformApiError, RoundtableError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChatRef } from "../../src/world/channel-adapter.js";
import { botApiFetch } from "./bot-api-fetch.js";
import type { TelegramPart } from "./render.js";

/** One bot that can post: the main bot, or an agent's own bot. */
export interface BotHandle {
  api: Api;
  /** Stable key for throttles and capability caches (the bot's user id once known). */
  key: string;
  /** The agent this bot belongs to; absent for the main bot. */
  agent?: string;
  me?: UserFromGetMe;
}

/** A grammY client for `token` talking to `apiRoot`, with the shared transformers installed. */
export function createApi(token: string, apiRoot: string | undefined, transformers: Transformer[]): Api {
  const api = new Api(token, { fetch: botApiFetch(), ...(apiRoot === undefined ? {} : { apiRoot }) });
  api.config.use(...transformers);
  return api;
}

/** The chat id grammY wants: numeric ids as numbers, `@channelname` as is. */
export function chatIdOf(chat: ChatRef): number | string {
  return /^-?\d+$/.test(chat.channel) ? Number(chat.channel) : chat.channel;
}

/** Private chats have the user's (positive) id; groups and supergroups negative ones. */
export function isPrivateChat(chat: ChatRef): boolean {
  return /^\d+$/.test(chat.channel);
}

export function threadOf(chat: ChatRef): { message_thread_id: number } | Record<string, never> {
  return chat.thread === undefined ? {} : { message_thread_id: Number(chat.thread) };
}

/** A grammY failure as a RoundtableError: the API refused, or the network failed. */
export function toPlatformError(error: unknown, what: string): RoundtableError {
  if (error instanceof RoundtableError) return error;
  if (error instanceof GrammyError) {
    const retryAfter = error.parameters.retry_after;
    // grammY makes one of any answer whose `ok` is not true; say what it was when not a refusal.
    const said =
      typeof error.error_code === "number" && typeof error.description === "string"
        ? `${error.error_code} ${error.description}`
        : `an answer not in the Bot API's shape (${error.message})`;
    return new PlatformApiError(`telegram ${what} refused: ${said}`, {
      cause: error,
      method: error.method,
      retryable: retryAfter !== undefined || error.error_code >= 500,
      userMessage: "Telegram refused the message.",
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter * 1000 }),
    });
  }
  if (error instanceof HttpError) {
    return new NetworkError(`telegram ${what} failed: ${error.message}`, { cause: error });
  }
  return new RoundtableError("internal", `telegram ${what} failed: ${String(error)}`, { cause: error });
}

export function isRefusal(error: unknown, pattern: RegExp): boolean {
  return error instanceof GrammyError && pattern.test(error.description);
}

/** Telegram will not deliver to that chat: the person never started the bot or blocked it (403), or no such chat. */
export function isUnreachableChat(error: unknown): boolean {
  const cause = error instanceof RoundtableError ? error.cause : error;
  if (!(cause instanceof GrammyError)) return false;
  return cause.error_code === 403 || (cause.error_code === 400 && /chat not found/i.test(cause.description));
}

const notModified = /message is not modified/i;
const badEntities = /can't parse entities|can't find end of|unsupported start tag|unexpected end tag/i;

/**
 * The outbound calls of the adapter. HTML that Telegram refuses (which the renderer should
 * never produce) is sent again as plain text, so that a message is never lost to formatting.
 */
export class TelegramOutbound {
  constructor(
    private readonly logger: Logger,
    /** Whether a chat's posts may show link previews (its world's `linkPreviews`). */
    private readonly linkPreviews: (chat: ChatRef) => boolean = () => false,
  ) {}

  /** No link previews unless the chat's world allows them: a preview is a fetch by Telegram. */
  private previewOptions(chat: ChatRef): { link_preview_options?: { is_disabled: true } } {
    return this.linkPreviews(chat) ? {} : { link_preview_options: { is_disabled: true } };
  }

  async send(
    bot: BotHandle,
    chat: ChatRef,
    part: TelegramPart,
    extra: { replyTo?: string; keyboard?: InlineKeyboardMarkup } = {},
  ): Promise<number> {
    const base = {
      ...threadOf(chat),
      ...this.previewOptions(chat),
      ...(extra.replyTo === undefined
        ? {}
        : { reply_parameters: { message_id: Number(extra.replyTo), allow_sending_without_reply: true } }),
      ...(extra.keyboard === undefined ? {} : { reply_markup: extra.keyboard }),
    };
    try {
      const sent = await bot.api.sendMessage(chatIdOf(chat), part.html, { ...base, parse_mode: "HTML" });
      return sent.message_id;
    } catch (error) {
      if (!isRefusal(error, badEntities)) throw toPlatformError(error, "sendMessage");
      this.logger.error({ err: error, html: part.html.slice(0, 500) }, "telegram refused our HTML; sending plain text");
      try {
        const sent = await bot.api.sendMessage(chatIdOf(chat), part.plain, base);
        return sent.message_id;
      } catch (plainError) {
        throw toPlatformError(plainError, "sendMessage");
      }
    }
  }

  /**
   * A file (a card's whole arguments) as a document replying to a message. Tried twice; a
   * failure is logged (the card already says the file is attached, and its arguments are in the
   * approvals audit), not thrown: throwing would post the card again.
   */
  async sendDocument(
    bot: BotHandle,
    chat: ChatRef,
    file: { name: string; content: string },
    extra: { replyTo: string; caption: string },
  ): Promise<void> {
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        await bot.api.sendDocument(chatIdOf(chat), new InputFile(Buffer.from(file.content, "utf8"), file.name), {
          ...threadOf(chat),
          caption: extra.caption,
          reply_parameters: { message_id: Number(extra.replyTo), allow_sending_without_reply: true },
        });
        return;
      } catch (error) {
        this.logger.error(
          { err: toPlatformError(error, "sendDocument"), attempt },
          "telegram could not attach a card's arguments",
        );
      }
    }
  }

  /** Replace a message's text; `keyboard` undefined removes any buttons. Unchanged text is fine. */
  async edit(
    bot: BotHandle,
    chat: ChatRef,
    messageId: number,
    part: TelegramPart,
    keyboard: InlineKeyboardMarkup = { inline_keyboard: [] },
  ): Promise<void> {
    try {
      await bot.api.editMessageText(chatIdOf(chat), messageId, part.html, {
        parse_mode: "HTML",
        reply_markup: keyboard,
        ...this.previewOptions(chat),
      });
    } catch (error) {
      if (isRefusal(error, notModified)) return;
      if (!isRefusal(error, badEntities)) throw toPlatformError(error, "editMessageText");
      this.logger.error(
        { err: error, html: part.html.slice(0, 500) },
        "telegram refused our HTML; editing to plain text",
      );
      try {
        await bot.api.editMessageText(chatIdOf(chat), messageId, part.plain, {
          reply_markup: keyboard,
          ...this.previewOptions(chat),
        });
      } catch (plainError) {
        if (!isRefusal(plainError, notModified)) throw toPlatformError(plainError, "editMessageText");
      }
    }
  }

  async draft(bot: BotHandle, chat: ChatRef, draftId: number, html: string): Promise<void> {
    const chatId = chatIdOf(chat);
    if (typeof chatId !== "number")
      throw new PlatformApiError("drafts need a numeric private chat id", { method: "sendMessageDraft" });
    try {
      await bot.api.sendMessageDraft(chatId, draftId, html, { ...threadOf(chat), parse_mode: "HTML" });
    } catch (error) {
      throw toPlatformError(error, "sendMessageDraft");
    }
  }

  /** `sendChatAction` `typing`: shown until the bot's next message or for about five seconds. */
  async typing(bot: BotHandle, chat: ChatRef): Promise<void> {
    try {
      await bot.api.sendChatAction(chatIdOf(chat), "typing", threadOf(chat));
    } catch (error) {
      throw toPlatformError(error, "sendChatAction");
    }
  }

  /** Remove a message; one already gone is no error. */
  async delete(bot: BotHandle, chat: ChatRef, messageId: number): Promise<void> {
    try {
      await bot.api.deleteMessage(chatIdOf(chat), messageId);
    } catch (error) {
      if (!isRefusal(error, /message to delete not found|message can't be deleted/i)) {
        throw toPlatformError(error, "deleteMessage");
      }
      this.logger.info({ messageId }, "message to delete was already gone");
    }
  }

  async answerCallback(bot: BotHandle, queryId: string, text: string, alert: boolean): Promise<void> {
    try {
      await bot.api.answerCallbackQuery(queryId, { text: text.slice(0, 200), show_alert: alert });
    } catch (error) {
      // A press older than Telegram's answer window cannot be answered; the decision stands.
      this.logger.warn({ err: error, queryId }, "telegram callback answer failed");
    }
  }
}
