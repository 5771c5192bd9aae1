import {
  type ApprovalCard,
  type ApprovalChoice,
  type ApprovalOutcome,
  hasInvisibleCharacters,
  invisibleCharactersNotice,
  type OutboundMention,
  revealInvisible,
  splitByMentions,
} from "../../src/world/channel-adapter.js";
import { outcomeWords, prettyArguments } from "../kit/approval-texts.js";
import { cardReasoning, cardStatusLines } from "../kit/card-extras.js";
import { approvalActionId, encodeApprovalValue } from "./action-value.js";
import type { Block, PostIdentity } from "./api.js";
import { escapeMrkdwn, markdownToMrkdwn } from "./mrkdwn.js";
import { splitMrkdwn } from "./split-mrkdwn.js";

/**
 * Longest text of one message the service posts. Slack cuts `text` at 40,000 characters but
 * recommends 4,000; staying below it keeps messages readable and edits cheap.
 */
export const slackMessageLimit = 3900;

/** A section block's text may hold 3,000 characters. */
const sectionLimit = 3000;

/** Arguments longer than this are shown cut on the card and attached whole as a file. */
const argumentsPreviewLimit = 2500;

/**
 * One Slack message as the adapter posts it (the adapter's `Part`): its mrkdwn text (the
 * notification text when it has blocks), its Block Kit blocks, and under whose name it goes.
 */
export interface SlackPart {
  text: string;
  blocks?: Block[];
  identity?: PostIdentity;
}

/** The bold name that starts an agent's text when the app cannot post under the agent's name. */
export function namePrefix(name: string): string {
  return `*${escapeMrkdwn(name)}:* `;
}

/** Marks where a mention stands while the rest of the text is converted (no markup touches it). */
const mentionMark = "\uE002";

/** A person as Slack's own mention; an agent (no Slack user) keeps its `@name`, escaped. */
function renderMention(mention: OutboundMention): string {
  return mention.target.kind === "person" ? `<@${mention.target.id}>` : escapeMrkdwn(mention.text);
}

/**
 * Markdown as one or more mrkdwn messages, each with `prefix` in front; every occurrence of
 * `mentions` (outside code and URLs) becomes Slack's own mention.
 */
export function renderText(
  markdown: string,
  prefix = "",
  limit = slackMessageLimit,
  mentions: readonly OutboundMention[] = [],
): string[] {
  const marked: string[] = [];
  const source = splitByMentions(markdown, mentions)
    .map((segment) => {
      if (segment.kind === "text") return segment.text;
      marked.push(renderMention(segment.mention));
      return `${mentionMark}${marked.length - 1}${mentionMark}`;
    })
    .join("");
  const pieces = splitMrkdwn(markdownToMrkdwn(source), Math.max(100, limit - prefix.length));
  const parts = pieces.map(
    (piece) => prefix + piece.replaceAll(/\uE002(\d+)\uE002/g, (_, index: string) => marked[Number(index)] ?? ""),
  );
  return parts.length > 0 ? parts : [`${prefix}_(no text)_`];
}

const choiceLabels: Record<ApprovalChoice, string> = {
  once: "Approve once",
  session: "For session",
  deny: "Deny",
  always: "Always allow",
};

/** The approval card: text fallback (notifications), blocks, and whether the arguments need a file. */
export interface RenderedCard {
  text: string;
  blocks: Block[];
  /** The full arguments, when they do not fit on the card. */
  attachment?: { filename: string; content: string };
}

function codeBlock(text: string): string {
  return `\`\`\`${escapeMrkdwn(text).replaceAll("```", "`\u200b``")}\`\`\``;
}

function section(text: string): Block {
  return { type: "section", text: { type: "mrkdwn", text: text.slice(0, sectionLimit) } };
}

function context(text: string): Block {
  return { type: "context", elements: [{ type: "mrkdwn", text: text.slice(0, sectionLimit) }] };
}

function clockTime(at: Date): string {
  return `<!date^${Math.floor(at.getTime() / 1000)}^{time}|${at.toISOString().slice(11, 16)} UTC>`;
}

/** The longest code block (markup and escapes included) a card shows: a section holds 3,000. */
const codeBlockLimit = sectionLimit - 100;

/**
 * The arguments on the card: all of them when they fit one section, else as much as fits and
 * a note that the whole JSON is attached (never a silent cut).
 */
function argumentsBlocks(fullJson: string): { blocks: Block[]; attach: boolean } {
  const pretty = prettyArguments(fullJson).trimEnd();
  if (codeBlock(pretty).length <= codeBlockLimit) return { blocks: [section(codeBlock(pretty))], attach: false };
  let kept = Math.min(pretty.length, argumentsPreviewLimit);
  while (kept > 0 && codeBlock(`${pretty.slice(0, kept)}…`).length > codeBlockLimit) kept -= 100;
  return {
    blocks: [
      section(codeBlock(`${pretty.slice(0, Math.max(0, kept))}…`)),
      context(
        `:paperclip: The arguments are ${fullJson.length.toLocaleString("en-US")} characters long; ` +
          "they are attached in full below this card.",
      ),
    ],
    attach: true,
  };
}

/** Who wants to run what, the arguments, and one button per choice (Deny in red, confirmed). */
export function renderApprovalCard(card: ApprovalCard): RenderedCard {
  const headline = `:closed_lock_with_key: *${escapeMrkdwn(card.agent)}* wants to run \`${escapeMrkdwn(card.tool)}\``;
  const args = argumentsBlocks(card.argumentsJson);
  const details = [
    `Asked for ${escapeMrkdwn(card.requestedFor)}`,
    `id \`${escapeMrkdwn(card.shortId)}\``,
    `expires ${clockTime(card.expiresAt)}`,
  ];
  const reasoning = cardReasoning(card);
  // The step's reasoning above the arguments, escaped as they are (a code block).
  const blocks: Block[] = [
    section(headline),
    ...(reasoning === undefined ? [] : [section(codeBlock(reasoning))]),
    ...args.blocks,
  ];
  if (hasInvisibleCharacters(card.argumentsJson)) blocks.push(context(`*${escapeMrkdwn(invisibleCharactersNotice)}*`));
  if (card.reason.trim() !== "") blocks.push(context(`_${escapeMrkdwn(card.reason)}_`));
  for (const line of cardStatusLines(card)) blocks.push(context(`*${escapeMrkdwn(line)}*`));
  blocks.push(context(details.join(" · ")));
  blocks.push({
    type: "actions",
    block_id: "approval",
    elements: card.choices.map((choice) => button(card, choice)),
  });
  return {
    text: `${card.agent} wants to run ${card.tool}`,
    blocks,
    ...(args.attach
      ? {
          attachment: {
            filename: `${card.tool}-${card.shortId}-arguments.json`,
            content: prettyArguments(card.argumentsJson, "\n"),
          },
        }
      : {}),
  };
}

function button(card: ApprovalCard, choice: ApprovalChoice): Block {
  return {
    type: "button",
    action_id: approvalActionId(choice),
    text: { type: "plain_text", text: choiceLabels[choice] },
    value: encodeApprovalValue(card.approvalId, choice),
    ...(choice === "once" ? { style: "primary" } : {}),
    ...(choice === "always"
      ? {
          confirm: {
            title: { type: "plain_text", text: "Always allow this call?" },
            text: {
              type: "mrkdwn",
              text: `The same call by ${escapeMrkdwn(card.agent)} will run without a card until the rule expires or is revoked (\`/rules\`).`,
            },
            confirm: { type: "plain_text", text: "Always allow" },
            deny: { type: "plain_text", text: "Cancel" },
          },
        }
      : {}),
    ...(choice === "deny"
      ? {
          style: "danger",
          confirm: {
            title: { type: "plain_text", text: "Deny this tool call?" },
            text: { type: "mrkdwn", text: `${escapeMrkdwn(card.agent)} will be told it was denied.` },
            confirm: { type: "plain_text", text: "Deny" },
            deny: { type: "plain_text", text: "Cancel" },
            style: "danger",
          },
        }
      : {}),
  };
}

/** The emoji in front of a decided card's outcome. */
const outcomeEmoji: Record<ApprovalOutcome["state"], string> = {
  approved: ":white_check_mark:",
  denied: ":x:",
  expired: ":hourglass:",
  skipped: ":fast_forward:",
};

/** A decided card: the outcome and who decided, above what was asked. No buttons. */
export function renderApprovalOutcome(outcome: ApprovalOutcome): { text: string; blocks: Block[] } {
  const words = outcomeWords(outcome, escapeMrkdwn);
  return {
    text: `${words}: ${outcome.agent} · ${outcome.tool}`,
    blocks: [
      section(`*${outcomeEmoji[outcome.state]} ${words}*`),
      context(
        `*${escapeMrkdwn(outcome.agent)}* · \`${escapeMrkdwn(outcome.tool)}\` · id \`${escapeMrkdwn(outcome.shortId)}\``,
      ),
      section(
        codeBlock(
          revealInvisible(
            outcome.argumentsPreview.length <= argumentsPreviewLimit
              ? outcome.argumentsPreview
              : `${outcome.argumentsPreview.slice(0, argumentsPreviewLimit)}…`,
          ),
        ),
      ),
    ],
  };
}
