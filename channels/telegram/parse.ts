import type {
  ApprovalClick,
  ApprovalInput,
  ChatRef,
  InboundCommand,
  InboundMessage,
  Sender,
} from "../../src/world/channel-adapter.js";
import { decodeApprovalCallback, decodeStopCallback } from "./callback-data.js";
import { type MentionDirectory, resolveMentions } from "./mentions.js";
import {
  type TelegramCallbackQuery,
  type TelegramChat,
  type TelegramEntity,
  type TelegramMessage,
  type TelegramUser,
  telegramUpdateSchema,
} from "./update-schema.js";

/** What one Bot API update means for the world. */
export type ParsedUpdate =
  | { kind: "message"; message: InboundMessage; files: TelegramFileRef[] }
  | { kind: "click"; click: ApprovalClick; callbackQueryId: string }
  /** The Stop button on a streaming answer. */
  | { kind: "command"; command: InboundCommand; callbackQueryId: string }
  /** *Deny with reason…* or *Edit…*: the adapter asks the presser for the text (force_reply). */
  | { kind: "ask"; ask: InputAsk; callbackQueryId: string }
  /** A button press the adapter cannot read (not ours, stale, malformed): answer it and log. */
  | { kind: "bad-click"; callbackQueryId: string; reason: string }
  | { kind: "ignored"; reason: string }
  | { kind: "invalid"; reason: string };

/**
 * The chat a message belongs to. A forum topic is its own chat; the thread id of a reply chain
 * in an ordinary supergroup is not a topic and is ignored.
 */
function chatRefOf(
  chat: TelegramChat,
  message: { message_thread_id?: number | undefined; is_topic_message?: boolean | undefined },
): ChatRef {
  const ref: ChatRef = { platform: "telegram", channel: String(chat.id) };
  if (chat.is_forum === true && message.is_topic_message === true && message.message_thread_id !== undefined) {
    ref.thread = String(message.message_thread_id);
  }
  return ref;
}

function userName(user: TelegramUser): string {
  return [user.first_name, user.last_name].filter((part) => part !== undefined && part !== "").join(" ");
}

function senderOf(user: TelegramUser, agentBotsById: ReadonlyMap<number, string>): Sender {
  return {
    id: String(user.id),
    displayName: agentBotsById.get(user.id) ?? userName(user),
    ...(user.username === undefined ? {} : { handle: user.username }),
    isBot: user.is_bot,
  };
}

function messageSender(message: TelegramMessage, directory: MentionDirectory): Sender | undefined {
  // An anonymous admin or a linked channel posts as a chat; that chat is the sender.
  if (message.sender_chat) {
    const chat = message.sender_chat;
    return { id: String(chat.id), displayName: chat.title ?? chat.username ?? String(chat.id), isBot: false };
  }
  if (message.from) return senderOf(message.from, directory.agentBotsById);
  return undefined;
}

/** A file of a message, as `getFile` takes it, with the name it gets in the workdir. */
export interface TelegramFileRef {
  fileId: string;
  name: string;
  size?: number;
}

/** The photo (its largest size), document, voice note and audio of a message. */
export function filesOf(message: TelegramMessage): TelegramFileRef[] {
  const refs: TelegramFileRef[] = [];
  const add = (file: { file_id: string; file_size?: number | undefined }, name: string) =>
    refs.push({ fileId: file.file_id, name, ...(file.file_size === undefined ? {} : { size: file.file_size }) });
  const largest = (message.photo ?? []).reduce<(typeof message.photo & object)[number] | undefined>(
    (best, size) => (best === undefined || size.width * size.height > best.width * best.height ? size : best),
    undefined,
  );
  if (largest) add(largest, `photo-${largest.file_unique_id}.jpg`);
  if (message.document)
    add(message.document, message.document.file_name ?? `document-${message.document.file_unique_id}`);
  if (message.voice) add(message.voice, `voice-${message.voice.file_unique_id}.ogg`);
  if (message.audio) add(message.audio, message.audio.file_name ?? `audio-${message.audio.file_unique_id}`);
  return refs;
}

function parseMessage(message: TelegramMessage, directory: MentionDirectory, raw: unknown): ParsedUpdate {
  const files = filesOf(message);
  // A photo or file without a caption is a message too (its text is empty).
  const body = message.text ?? message.caption ?? (files.length > 0 ? "" : undefined);
  if (body === undefined) return { kind: "ignored", reason: "message without text" };
  const sender = messageSender(message, directory);
  if (!sender) return { kind: "invalid", reason: "message without sender" };
  const entities = (message.text === undefined ? message.caption_entities : message.entities) ?? [];
  const { text, mentions } = resolveMentions(body, entities, directory);
  const inbound: InboundMessage = {
    chat: chatRefOf(message.chat, message),
    platformMessageId: String(message.message_id),
    sender,
    text,
    mentions,
    receivedAt: new Date(message.date * 1000),
    raw,
    ...(directory.mainBotUsername === undefined ? {} : { botNames: [directory.mainBotUsername] }),
  };
  // Our own bots' posts (the main bot, an agent's bot) seen again are echoes, never new input.
  const fromId = message.from?.id;
  if (fromId !== undefined && (fromId === directory.mainBotId || directory.agentBotsById.has(fromId))) {
    inbound.ownEcho = true;
  }
  const reply = message.reply_to_message;
  // In a forum every message "replies" to the topic's first message; that is no reply.
  if (reply && !(message.is_topic_message === true && reply.message_id === message.message_thread_id)) {
    inbound.replyTo = String(reply.message_id);
  }
  return { kind: "message", message: inbound, files };
}

/** A press of *Deny with reason…* or *Edit…*: who asks for which card, and the card's arguments. */
export interface InputAsk {
  chat: ChatRef;
  approvalId: string;
  input: ApprovalInput;
  user: Sender;
  cardMessageId: number;
  /** The arguments as the card shows them (its first `pre` block), for *Edit…*. */
  cardArguments?: string;
}

/** The text of a message's first `pre` entity (UTF-16 offsets, as JavaScript strings count). */
function preBlockOf(text: string | undefined, entities: readonly TelegramEntity[] | undefined): string | undefined {
  const pre = entities?.find((entity) => entity.type === "pre");
  return text === undefined || pre === undefined ? undefined : text.slice(pre.offset, pre.offset + pre.length);
}

function parseCallbackQuery(query: TelegramCallbackQuery, raw: unknown): ParsedUpdate {
  if (query.data === undefined) return { kind: "bad-click", callbackQueryId: query.id, reason: "no callback data" };
  const stop = decodeStopCallback(query.data);
  if (stop && query.message) {
    const command: InboundCommand = {
      chat: chatRefOf(query.message.chat, query.message),
      name: "stop",
      args: stop.agent === "" ? [] : [stop.agent],
      sender: senderOf(query.from, new Map()),
      platformEventId: query.id,
      raw,
    };
    return { kind: "command", command, callbackQueryId: query.id };
  }
  const decoded = decodeApprovalCallback(query.data);
  if (!decoded) return { kind: "bad-click", callbackQueryId: query.id, reason: "malformed callback data" };
  if (!query.message) return { kind: "bad-click", callbackQueryId: query.id, reason: "press without a message" };
  if (decoded.choice === "reason" || decoded.choice === "edit") {
    const ask: InputAsk = {
      chat: chatRefOf(query.message.chat, query.message),
      approvalId: decoded.approvalId,
      input: decoded.choice,
      user: senderOf(query.from, new Map()),
      cardMessageId: query.message.message_id,
    };
    const cardArguments = preBlockOf(query.message.text, query.message.entities);
    if (cardArguments !== undefined) ask.cardArguments = cardArguments;
    return { kind: "ask", ask, callbackQueryId: query.id };
  }
  const click: ApprovalClick = {
    chat: chatRefOf(query.message.chat, query.message),
    approvalId: decoded.approvalId,
    choice: decoded.choice,
    user: senderOf(query.from, new Map()),
    platformEventId: query.id,
    raw,
  };
  return { kind: "click", click, callbackQueryId: query.id };
}

/** A raw Bot API update, validated, as world input. Never throws. */
export function parseUpdate(raw: unknown, directory: MentionDirectory): ParsedUpdate {
  const parsed = telegramUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    // A button press whose other fields are broken still deserves an answer.
    const queryId = callbackQueryIdOf(raw);
    const reason = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
      .join("; ");
    if (queryId !== undefined) return { kind: "bad-click", callbackQueryId: queryId, reason };
    return { kind: "invalid", reason };
  }
  const update = parsed.data;
  if (update.message) return parseMessage(update.message, directory, raw);
  if (update.callback_query) return parseCallbackQuery(update.callback_query, raw);
  return { kind: "ignored", reason: "update type not handled" };
}

function callbackQueryIdOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const query = (raw as { callback_query?: unknown }).callback_query;
  if (typeof query !== "object" || query === null) return undefined;
  const id = (query as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
}
