import { type Api, InputFile } from "grammy";
import type { Author, ChatRef, OutboundFile, SendPartOptions } from "../../src/world/channel-adapter.js";
import { chatIdOf, toPlatformError } from "./api.js";
import { escapeHtml } from "./markdown-html.js";

/** Images Telegram shows as a photo (`sendPhoto`); any other file is a document. */
const photoTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/webp"]);
/** Telegram's largest photo upload; a bigger image goes as a document. */
const maxPhotoBytes = 10 * 1024 * 1024;
/** Telegram's longest caption (characters after entities are parsed). */
export const maxCaptionLength = 1024;

/**
 * Post one file into a Telegram chat (its forum topic when it has one) as multipart: an image
 * Telegram can show (PNG, JPEG, WebP up to 10 MiB) with `sendPhoto`, anything else with
 * `sendDocument`, under its name, with the caption (HTML, cut to Telegram's 1024 characters) led
 * by an agent's name in bold, the way the adapter names an agent posting through the main bot
 * (pass the agent's own bot's `Api` to post as it instead: give `author` as `kind: "bot"` then, unnamed).
 * Returns the message id. Telegram cannot carry a post key, so `options.key` is not used (the
 * window between Telegram's answer and the stored id remains); `options.replyTo` replies.
 */
export async function sendTelegramFile(
  api: Api,
  chat: ChatRef,
  author: Author,
  file: OutboundFile,
  options: SendPartOptions = {},
): Promise<string> {
  const caption = captionFor(author, file.caption);
  const extra = {
    ...(chat.thread === undefined ? {} : { message_thread_id: Number(chat.thread) }),
    ...(caption === undefined ? {} : { caption, parse_mode: "HTML" as const }),
    ...(options.replyTo === undefined
      ? {}
      : { reply_parameters: { message_id: Number(options.replyTo), allow_sending_without_reply: true } }),
  };
  const input = new InputFile(file.bytes, file.name);
  const asPhoto = photoTypes.has(file.mimeType) && file.bytes.length <= maxPhotoBytes;
  try {
    const sent = asPhoto
      ? await api.sendPhoto(chatIdOf(chat), input, extra)
      : await api.sendDocument(chatIdOf(chat), input, extra);
    return String(sent.message_id);
  } catch (error) {
    throw toPlatformError(error, asPhoto ? "sendPhoto" : "sendDocument");
  }
}

/** The caption as Telegram HTML: an agent's bold name, then the caption, within 1024 characters. */
function captionFor(author: Author, caption: string | undefined): string | undefined {
  const name = author.kind === "agent" ? `${author.displayName ?? author.name}` : undefined;
  const text = caption ?? "";
  const lead = name === undefined ? "" : `<b>${escapeHtml(name)}</b>${text === "" ? "" : ": "}`;
  const room = maxCaptionLength - (name === undefined ? 0 : name.length + 2);
  const cut = text.length <= room ? text : `${text.slice(0, Math.max(0, room - 1))}…`;
  const html = `${lead}${escapeHtml(cut)}`;
  return html === "" ? undefined : html;
}
