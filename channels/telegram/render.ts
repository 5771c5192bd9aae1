import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import {
  type ApprovalCard,
  type ApprovalChoice,
  type ApprovalOutcome,
  hasInvisibleCharacters,
  invisibleCharactersNotice,
  revealInvisible,
} from "../../src/world/channel-adapter.js";
import { outcomeEmoji, outcomeWords, prettyArguments } from "../kit/approval-texts.js";
import { cardReasoning, cardStatusLines } from "../kit/card-extras.js";
import { encodeApprovalCallback, encodeStopCallback } from "./callback-data.js";
import { escapeHtml, markdownToTelegramHtml } from "./markdown-html.js";
import { splitMarkdown } from "./split-markdown.js";

/** Telegram's limit for a message's text after entity parsing. */
export const telegramMessageLimit = 4096;

/** One Telegram message (the adapter's `Part`): HTML to send, and plain text if the HTML is refused. */
export interface TelegramPart {
  html: string;
  plain: string;
}

/** The bold name that starts an agent's message when it posts through the main bot. */
function namePrefix(name: string): TelegramPart {
  return { html: `<b>${escapeHtml(name)}:</b> `, plain: `${name}: ` };
}

/**
 * Markdown as one or more Telegram messages of at most `limit` visible characters, each with
 * the author's bold name in front when `authorName` is given.
 */
export function renderText(markdown: string, authorName?: string, limit = telegramMessageLimit): TelegramPart[] {
  const prefix = authorName === undefined ? { html: "", plain: "" } : namePrefix(authorName);
  const budget = Math.max(1, limit - prefix.plain.length);
  const parts: TelegramPart[] = [];
  for (const piece of splitMarkdown(markdown, budget)) {
    // Telegram trims messages anyway; a piece of only whitespace is no message.
    const trimmed = piece.replace(/^\s*\n/, "").trimEnd();
    if (trimmed.trim() === "") continue;
    parts.push({ html: prefix.html + markdownToTelegramHtml(trimmed), plain: prefix.plain + trimmed });
  }
  if (parts.length === 0) parts.push({ html: `${prefix.html}<i>(no text)</i>`, plain: `${prefix.plain}(no text)` });
  return parts;
}

/** The Stop button on an answer being written. */
export function stopKeyboard(agent: string): InlineKeyboardMarkup {
  return { inline_keyboard: [[{ text: "⏹ Stop", callback_data: encodeStopCallback(agent) }]] };
}

const choiceLabels: Record<ApprovalChoice, string> = {
  once: "✅ Approve once",
  session: "🔁 For session",
  deny: "❌ Deny",
  always: "♾ Always allow",
};

/** Longest arguments preview shown on a card (the whole card must fit one message). */
const previewLimit = 3000;

function preview(text: string): string {
  return text.length <= previewLimit ? text : `${text.slice(0, previewLimit)}…`;
}

function argumentsBlock(argumentsPreview: string): string {
  return `<pre><code class="language-json">${escapeHtml(preview(revealInvisible(argumentsPreview)))}</code></pre>`;
}

/**
 * The file a card attaches when its arguments do not fit on it: every byte of them, as a
 * document replying to the card. Undefined when the card shows them whole.
 */
export function cardArgumentsFile(card: ApprovalCard): { name: string; content: string } | undefined {
  const whole = prettyArguments(card.argumentsJson);
  const previewCut = card.argumentsPreview.endsWith("…") && card.argumentsPreview.length <= whole.length;
  if (whole.length <= previewLimit && !previewCut) return undefined;
  return { name: `arguments-${card.shortId}.json`, content: whole };
}

/** The arguments on a card: whole when they fit, else their start and a line saying all are attached. */
function cardArgumentsLines(card: ApprovalCard): string[] {
  const file = cardArgumentsFile(card);
  const notice = hasInvisibleCharacters(card.argumentsJson) ? [`<b>${escapeHtml(invisibleCharactersNotice)}</b>`] : [];
  if (!file) return [argumentsBlock(card.argumentsPreview), ...notice];
  return [
    ...notice,
    `<pre><code class="language-json">${escapeHtml(file.content.slice(0, previewLimit))}</code></pre>`,
    `📎 <b>The arguments are ${file.content.length} characters long</b>: the card shows the first ${previewLimit}; all of them are in <code>${escapeHtml(file.name)}</code>, attached below.`,
  ];
}

/** The step's reasoning above the arguments, escaped as they are. */
function reasoningLines(card: ApprovalCard): string[] {
  const reasoning = cardReasoning(card);
  return reasoning === undefined ? [] : [`<blockquote>${escapeHtml(reasoning)}</blockquote>`];
}

function clockTime(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}

/** An approval request: who wants to run what, and one button per choice. */
export function renderApprovalCard(card: ApprovalCard): { html: string; keyboard: InlineKeyboardMarkup } {
  const lines = [
    `🔐 <b>${escapeHtml(card.agent)}</b> wants to run <code>${escapeHtml(card.tool)}</code>`,
    ...reasoningLines(card),
    ...cardArgumentsLines(card),
  ];
  if (card.reason.trim() !== "") lines.push(`<i>${escapeHtml(card.reason)}</i>`);
  for (const line of cardStatusLines(card)) lines.push(`<b>${escapeHtml(line)}</b>`);
  lines.push(
    `Asked for ${escapeHtml(card.requestedFor)} · id <code>${escapeHtml(card.shortId)}</code> · expires ${clockTime(card.expiresAt)}`,
  );
  const buttons: InlineKeyboardButton[] = card.choices.map((choice) => ({
    text: choiceLabels[choice],
    callback_data: encodeApprovalCallback(card.approvalId, choice),
  }));
  const approve = buttons.filter((_, index) => card.choices[index] !== "deny" && card.choices[index] !== "always");
  const always = buttons.filter((_, index) => card.choices[index] === "always");
  const deny = buttons.filter((_, index) => card.choices[index] === "deny");
  const rows = [approve, always, deny].filter((row) => row.length > 0);
  return { html: lines.join("\n"), keyboard: { inline_keyboard: rows } };
}

/** A decided card: the outcome and who decided, above what was asked. No buttons. */
export function renderApprovalOutcome(outcome: ApprovalOutcome): string {
  return [
    `<b>${outcomeEmoji[outcome.state]} ${outcomeWords(outcome, escapeHtml)}</b>`,
    `<b>${escapeHtml(outcome.agent)}</b> · <code>${escapeHtml(outcome.tool)}</code> · id <code>${escapeHtml(outcome.shortId)}</code>`,
    argumentsBlock(outcome.argumentsPreview),
    ...(outcome.argumentsPreview.endsWith("…")
      ? ["📎 Shown in part; the whole arguments are attached to this card."]
      : []),
  ].join("\n");
}

/** Rendered HTML as plain text (the fallback when Telegram refuses the HTML). */
export function htmlToPlain(html: string): string {
  return html
    .replaceAll(/<[^>]*>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
}
