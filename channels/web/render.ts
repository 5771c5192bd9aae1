import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  hasInvisibleCharacters,
  invisibleCharactersNotice,
  revealInvisible,
} from "../../src/world/channel-adapter.js";
import type { WebAuthor, WebCard, WebItem } from "./web-items.js";
import { cardReasoning, cardStatusLines } from "../kit/card-extras.js";

/** How an agent appears on the page (`agents[].displayName`, `agents[].avatarUrl`). */
export interface AgentIdentity {
  name: string;
  displayName: string;
  avatarUrl?: string;
}

/** The page's view of an author: an agent under its display name and avatar. */
export function toWebAuthor(author: Author, agents: ReadonlyMap<string, AgentIdentity>): WebAuthor {
  const agent = author.kind === "agent" ? agents.get(author.id) : undefined;
  const displayName = author.displayName ?? agent?.displayName ?? author.name;
  const avatarUrl = author.avatarUrl ?? agent?.avatarUrl;
  return { kind: author.kind, name: author.name, displayName, ...(avatarUrl === undefined ? {} : { avatarUrl }) };
}

/** Past this many characters (or lines) the page's arguments box scrolls, and the card says so. */
const longArgumentsCharacters = 1500;
const longArgumentsLines = 20;

/**
 * A card's arguments as the page shows them: the normalized JSON the call runs with (the
 * parsed value written again, never the model's own text), invisible characters as escapes,
 * the line saying so, and for arguments longer than the box their length.
 */
export function webCardArguments(
  argumentsJson: string,
): Pick<WebCard, "argumentsJson" | "invisibleNotice" | "lengthNotice"> {
  let normalized = argumentsJson;
  let pretty = argumentsJson;
  try {
    const value: unknown = JSON.parse(argumentsJson);
    normalized = JSON.stringify(value);
    pretty = JSON.stringify(value, null, 2);
  } catch {
    // Not JSON: such a call never gets a card; shown as stored.
  }
  const shown = revealInvisible(normalized);
  const long = pretty.length > longArgumentsCharacters || pretty.split("\n").length > longArgumentsLines;
  return {
    argumentsJson: shown,
    ...(hasInvisibleCharacters(normalized) ? { invisibleNotice: invisibleCharactersNotice } : {}),
    ...(long
      ? {
          lengthNotice: `The arguments are ${normalized.length.toLocaleString("en-US")} characters long: the box scrolls to show them all.`,
        }
      : {}),
  };
}

export function toWebCard(card: ApprovalCard, agents: ReadonlyMap<string, AgentIdentity>): WebCard {
  const displayName = agents.get(card.agent)?.displayName;
  const reasoning = cardReasoning(card);
  const status = cardStatusLines(card);
  return {
    approvalId: card.approvalId,
    shortId: card.shortId,
    agent: card.agent,
    ...(displayName === undefined || displayName === card.agent ? {} : { agentDisplayName: displayName }),
    tool: card.tool,
    ...webCardArguments(card.argumentsJson),
    reason: card.reason,
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(status.length === 0 ? {} : { status }),
    requestedFor: card.requestedFor,
    expiresAt: card.expiresAt.toISOString(),
    state: "pending",
  };
}

/** The card after a decision: the card as shown before (when known) with its outcome and no buttons. */
export function decidedCard(outcome: ApprovalOutcome, before: WebCard | undefined): WebCard {
  const base: WebCard = before ?? {
    approvalId: outcome.approvalId,
    shortId: outcome.shortId,
    agent: outcome.agent,
    tool: outcome.tool,
    argumentsJson: revealInvisible(outcome.argumentsPreview),
    reason: "",
    requestedFor: "",
    expiresAt: outcome.at.toISOString(),
    state: "pending",
  };
  return {
    ...base,
    state: outcome.state,
    ...(outcome.choice === undefined ? {} : { choice: outcome.choice }),
    ...(outcome.decidedBy === undefined ? {} : { decidedBy: outcome.decidedBy.name }),
    ...(outcome.note === undefined ? {} : { note: outcome.note }),
  };
}

export function cardItem(card: WebCard, at: Date): WebItem {
  return { kind: "card", id: card.approvalId, card, at: at.toISOString() };
}
