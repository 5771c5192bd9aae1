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
import { encodeApprovalCustomId, encodeStopCustomId } from "./custom-id.js";
import { discordMessageLimit, splitMessage } from "./split-message.js";

/** A file attached to a message (multipart upload). */
export interface RenderedFile {
  name: string;
  data: string;
}

/** A message body as Discord's REST API takes it. */
export interface RenderedMessage {
  content: string;
  components: unknown[];
  files: RenderedFile[];
}

/** One Discord message of a text: its content, and the people it may ping (its mentions). */
export interface DiscordPart {
  content: string;
  userIds: string[];
}

/** Mentions in our own posts never ping anyone by accident (`@everyone` in a model's answer). */
export const noPings = { parse: [] as string[] };

/** The bold name that starts an agent's message when it posts through the bot itself. */
function namePrefix(name: string): string {
  return `**${name.replaceAll("*", "\\*")}:** `;
}

/**
 * Markdown (native on Discord) as one or more messages of at most 2,000 characters, each with
 * the author's bold name in front when `authorName` is given.
 */
export function renderText(markdown: string, authorName?: string, limit = discordMessageLimit): string[] {
  const prefix = authorName === undefined ? "" : namePrefix(authorName);
  const pieces = splitMessage(markdown.trim() === "" ? "*(no text)*" : markdown, limit - prefix.length);
  return pieces.map((piece) => prefix + piece);
}

const buttonStyles = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

const choiceButtons: Record<ApprovalChoice, { label: string; style: number }> = {
  once: { label: "Approve once", style: buttonStyles.success },
  session: { label: "For session", style: buttonStyles.primary },
  deny: { label: "Deny", style: buttonStyles.danger },
  always: { label: "Always allow", style: buttonStyles.secondary },
};

/** Longest arguments shown inline on a card; longer ones are attached in full. */
const inlineArgumentsLimit = 1200;
const argumentsFileName = "arguments.json";

function codeBlock(text: string, language = "json"): string {
  // A fence inside the arguments would end the block early; a zero-width joiner breaks it.
  return `\`\`\`${language}\n${text.replaceAll("```", "`\u200d``")}\n\`\`\``;
}

function clockTime(at: Date): string {
  return `<t:${Math.floor(at.getTime() / 1000)}:t>`;
}

/**
 * An approval request: agent, tool, the arguments (whole when short, else the beginning, the
 * length and the whole JSON attached as `arguments.json`), and a row of three buttons whose
 * `custom_id` carries only the approval id and the choice.
 */
export function renderApprovalCard(card: ApprovalCard): RenderedMessage {
  const pretty = prettyArguments(card.argumentsJson);
  const inline = pretty.length <= inlineArgumentsLimit;
  let content = cardContent(card, pretty, inline);
  let attach = !inline;
  if (content.length > discordMessageLimit && inline) {
    // A long reason or names leave no room for the whole arguments: attach them instead.
    content = cardContent(card, pretty, false);
    attach = true;
  }
  const buttons = card.choices.map((choice) => ({
    type: 2,
    style: choiceButtons[choice].style,
    label: choiceButtons[choice].label,
    custom_id: encodeApprovalCustomId(card.approvalId, choice),
  }));
  return {
    content: content.slice(0, discordMessageLimit),
    components: [{ type: 1, components: buttons }],
    files: attach ? [{ name: argumentsFileName, data: pretty }] : [],
  };
}

/** Longest reason shown on a card (the whole card must fit one message). */
const reasonLimit = 400;

function cardContent(card: ApprovalCard, pretty: string, inline: boolean): string {
  const lines = [`🔐 **${card.agent}** wants to run \`${card.tool}\``];
  // The step's reasoning above the arguments, escaped as they are (a code block).
  const reasoning = cardReasoning(card);
  if (reasoning !== undefined) lines.push(codeBlock(reasoning, ""));
  if (hasInvisibleCharacters(card.argumentsJson)) lines.push(`**${invisibleCharactersNotice}**`);
  if (inline) {
    lines.push(codeBlock(pretty));
  } else {
    lines.push(codeBlock(`${pretty.slice(0, 600)}\n…`));
    lines.push(
      `The arguments are ${card.argumentsJson.length.toLocaleString("en-US")} characters long: all of them are attached as \`${argumentsFileName}\`.`,
    );
  }
  const reason = card.reason.trim();
  if (reason !== "") lines.push(`*${reason.length > reasonLimit ? `${reason.slice(0, reasonLimit)}…` : reason}*`);
  for (const line of cardStatusLines(card)) lines.push(`**${line}**`);
  lines.push(`Asked for ${card.requestedFor} · id \`${card.shortId}\` · expires ${clockTime(card.expiresAt)}`);
  return lines.join("\n");
}

/** A decided card: the outcome and who decided, above what was asked. No buttons. */
export function renderApprovalOutcome(outcome: ApprovalOutcome): { content: string; components: unknown[] } {
  const preview =
    outcome.argumentsPreview.length > inlineArgumentsLimit
      ? `${revealInvisible(outcome.argumentsPreview.slice(0, 600))}\n…`
      : revealInvisible(outcome.argumentsPreview);
  return {
    content: [
      `**${outcomeEmoji[outcome.state]} ${outcomeWords(outcome)}**`,
      `**${outcome.agent}** · \`${outcome.tool}\` · id \`${outcome.shortId}\``,
      codeBlock(preview),
    ].join("\n"),
    components: [],
  };
}

/** The Stop button on an answer being written (a secondary button in an action row). */
export function stopButtonComponents(agent: string): unknown[] {
  return [
    {
      type: 1,
      components: [{ type: 2, style: 2, label: "Stop", emoji: { name: "⏹" }, custom_id: encodeStopCustomId(agent) }],
    },
  ];
}
