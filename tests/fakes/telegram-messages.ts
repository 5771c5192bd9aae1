import { type FakeEntity, parseTelegramHtml } from "./telegram-html.js";

/** Chats and messages of the fake Bot API: what was sent, as a Telegram client would show it. */

export interface FakeUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface FakeChat {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  first_name?: string;
  is_forum?: boolean;
}

export interface StoredMessage {
  message_id: number;
  chat: FakeChat;
  message_thread_id?: number;
  from: FakeUser;
  /** Token of the bot that sent it (absent for people's messages). */
  sentByToken?: string;
  text: string;
  entities: FakeEntity[];
  /** The HTML (or plain text) as the bot sent it. */
  source?: string;
  reply_markup?: unknown;
  reply_to_message_id?: number;
  /** A sent file (sendDocument): its name and whole content (as UTF-8, and as bytes). */
  document?: { file_name: string; content: string; bytes?: Uint8Array };
  /** A sent photo (sendPhoto): its bytes. */
  photo?: { bytes: Uint8Array };
  deleted?: boolean;
  editCount: number;
}

export type Json = Record<string, unknown>;
export type Outcome =
  | { ok: true; result: unknown }
  | { ok: false; error_code: number; description: string; parameters?: Json };

export const ok = (result: unknown): Outcome => ({ ok: true, result });
export const refuse = (error_code: number, description: string, parameters?: Json): Outcome =>
  parameters === undefined
    ? { ok: false, error_code, description }
    : { ok: false, error_code, description, parameters };

export class FakeChats {
  private readonly chats = new Map<number, FakeChat>();
  private readonly messages = new Map<string, StoredMessage>();
  private readonly nextMessageId = new Map<number, number>();

  add(chat: FakeChat): FakeChat {
    this.chats.set(chat.id, chat);
    return chat;
  }

  get(chatId: number): FakeChat | undefined {
    return this.chats.get(chatId);
  }

  store(message: StoredMessage): void {
    this.messages.set(`${message.chat.id}:${message.message_id}`, message);
  }

  message(chatId: number, messageId: number): StoredMessage | undefined {
    return this.messages.get(`${chatId}:${messageId}`);
  }

  messagesIn(chatId: number, threadId?: number): StoredMessage[] {
    return [...this.messages.values()].filter(
      (message) =>
        message.chat.id === chatId &&
        !message.deleted &&
        (threadId === undefined || message.message_thread_id === threadId),
    );
  }

  delete(params: Json): Outcome {
    const stored = this.messages.get(`${params.chat_id}:${params.message_id}`);
    if (!stored || stored.deleted) return refuse(400, "Bad Request: message to delete not found");
    stored.deleted = true;
    return ok(true);
  }

  continueMessageIds(chatId: number, next: number): void {
    this.nextMessageId.set(chatId, next);
  }

  allocateMessageId(chatId: number): number {
    const id = this.nextMessageId.get(chatId) ?? 1;
    this.nextMessageId.set(chatId, id + 1);
    return id;
  }

  messageJson(stored: StoredMessage): Json {
    const message: Json = {
      message_id: stored.message_id,
      from: stored.from,
      chat: stored.chat,
      date: 1_700_000_000 + stored.message_id,
      text: stored.text,
    };
    if (stored.entities.length > 0) message.entities = stored.entities;
    if (stored.message_thread_id !== undefined && stored.chat.is_forum) {
      message.message_thread_id = stored.message_thread_id;
      message.is_topic_message = true;
    }
    if (stored.reply_markup !== undefined) message.reply_markup = stored.reply_markup;
    const replied =
      stored.reply_to_message_id === undefined ? undefined : this.message(stored.chat.id, stored.reply_to_message_id);
    if (replied)
      message.reply_to_message = {
        message_id: replied.message_id,
        from: replied.from,
        chat: replied.chat,
        date: 1,
        text: replied.text,
      };
    return message;
  }

  parseText(params: Json): { ok: true; text: string; entities: FakeEntity[] } | { ok: false; error: string } {
    const source = typeof params.text === "string" ? params.text : "";
    const parsed =
      params.parse_mode === "HTML" ? parseTelegramHtml(source) : { ok: true as const, text: source, entities: [] };
    if (!parsed.ok) return parsed;
    if (parsed.text.length > 4096) return { ok: false, error: "Bad Request: message is too long" };
    return parsed;
  }

  send(botUser: FakeUser, token: string, params: Json): Outcome {
    const chat = this.chats.get(Number(params.chat_id));
    // A person's private chat exists once they started the bot (`addChat` with type private).
    if (!chat && Number(params.chat_id) > 0)
      return refuse(403, "Forbidden: bot can't initiate conversation with a user");
    if (!chat) return refuse(400, "Bad Request: chat not found");
    const parsed = this.parseText(params);
    if (!parsed.ok) return refuse(400, parsed.error);
    if (parsed.text.trim() === "") return refuse(400, "Bad Request: message text is empty");
    const reply = params.reply_parameters as { message_id?: number } | undefined;
    const stored: StoredMessage = {
      message_id: this.allocateMessageId(chat.id),
      chat,
      from: botUser,
      sentByToken: token,
      text: parsed.text,
      entities: parsed.entities,
      source: String(params.text),
      editCount: 0,
      ...(params.reply_markup === undefined ? {} : { reply_markup: params.reply_markup }),
      ...(typeof params.message_thread_id === "number" ? { message_thread_id: params.message_thread_id } : {}),
      ...(typeof reply?.message_id === "number" ? { reply_to_message_id: reply.message_id } : {}),
    };
    this.messages.set(`${chat.id}:${stored.message_id}`, stored);
    return ok(this.messageJson(stored));
  }

  /** sendDocument: a file (with an optional caption), possibly replying to a message. */
  sendDocument(botUser: FakeUser, token: string, params: Json): Outcome {
    return this.sendFile("document", botUser, token, params);
  }

  /** sendPhoto: an image (PNG, JPEG, WebP; else Telegram cannot process it), with an optional caption. */
  sendPhoto(botUser: FakeUser, token: string, params: Json): Outcome {
    return this.sendFile("photo", botUser, token, params);
  }

  private sendFile(kind: "document" | "photo", botUser: FakeUser, token: string, params: Json): Outcome {
    const chat = this.chats.get(Number(params.chat_id));
    if (!chat) return refuse(400, "Bad Request: chat not found");
    const file = params[kind] as { file_name?: string; content?: string; bytes?: Uint8Array } | undefined;
    if (typeof file?.content !== "string") return refuse(400, `Bad Request: there is no ${kind} in the request`);
    const bytes = file.bytes ?? new TextEncoder().encode(file.content);
    if (kind === "photo" && !isPhoto(bytes)) return refuse(400, "Bad Request: IMAGE_PROCESS_FAILED");
    const caption = this.parseText({ text: params.caption, parse_mode: params.parse_mode });
    if (!caption.ok) return refuse(400, caption.error.replace("message is too long", "message caption is too long"));
    if (caption.text.length > 1024) return refuse(400, "Bad Request: message caption is too long");
    const reply = params.reply_parameters as { message_id?: number } | undefined;
    const stored: StoredMessage = {
      message_id: this.allocateMessageId(chat.id),
      chat,
      from: botUser,
      sentByToken: token,
      text: caption.text,
      entities: caption.entities,
      ...(kind === "document"
        ? { document: { file_name: file.file_name ?? "file", content: file.content, bytes } }
        : { photo: { bytes } }),
      editCount: 0,
      ...(typeof params.message_thread_id === "number" ? { message_thread_id: params.message_thread_id } : {}),
      ...(typeof reply?.message_id === "number" ? { reply_to_message_id: reply.message_id } : {}),
    };
    this.messages.set(`${chat.id}:${stored.message_id}`, stored);
    const json = this.messageJson(stored) as Json;
    const fileId = `sent-${chat.id}-${stored.message_id}`;
    return ok(
      kind === "document"
        ? { ...json, document: { file_name: stored.document?.file_name, file_id: fileId, file_size: bytes.length } }
        : {
            ...json,
            photo: [{ file_id: fileId, file_unique_id: fileId, width: 1, height: 1, file_size: bytes.length }],
          },
    );
  }

  edit(token: string, params: Json, withText: boolean): Outcome {
    const stored = this.messages.get(`${params.chat_id}:${params.message_id}`);
    if (!stored || stored.deleted) return refuse(400, "Bad Request: message to edit not found");
    if (stored.sentByToken !== token) return refuse(400, "Bad Request: message can't be edited");
    const markup = isEmptyKeyboard(params.reply_markup) ? undefined : params.reply_markup;
    let text = stored.text;
    let entities = stored.entities;
    if (withText) {
      const parsed = this.parseText(params);
      if (!parsed.ok) return refuse(400, parsed.error);
      if (parsed.text.trim() === "") return refuse(400, "Bad Request: message text is empty");
      text = parsed.text;
      entities = parsed.entities;
    }
    const same =
      text === stored.text &&
      JSON.stringify(entities) === JSON.stringify(stored.entities) &&
      JSON.stringify(markup) === JSON.stringify(stored.reply_markup);
    if (same) {
      return refuse(
        400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    }
    stored.text = text;
    stored.entities = entities;
    if (withText) stored.source = String(params.text);
    if (markup === undefined) delete stored.reply_markup;
    else stored.reply_markup = markup;
    stored.editCount += 1;
    return ok(this.messageJson(stored));
  }
}

function isEmptyKeyboard(markup: unknown): boolean {
  if (markup === undefined) return true;
  const rows = (markup as { inline_keyboard?: unknown[] }).inline_keyboard;
  return Array.isArray(rows) && rows.every((row) => Array.isArray(row) && row.length === 0);
}

/** Whether bytes are an image Telegram takes as a photo (PNG, JPEG, WebP). */
function isPhoto(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 12));
  return (
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) ||
    head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) ||
    (head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP")
  );
}
