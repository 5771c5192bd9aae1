import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  hasInvisibleCharacters,
  invisibleCharactersNotice,
  revealInvisible,
} from "../../src/world/channel-adapter.js";
import type { WebAuthor, WebCard, WebItem } from "./web-items.js";

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

export function toWebCard(card: ApprovalCard, agents: ReadonlyMap<string, AgentIdentity>): WebCard {
  const displayName = agents.get(card.agent)?.displayName;
  return {
    approvalId: card.approvalId,
    shortId: card.shortId,
    agent: card.agent,
    ...(displayName === undefined || displayName === card.agent ? {} : { agentDisplayName: displayName }),
    tool: card.tool,
    argumentsJson: revealInvisible(card.argumentsJson),
    ...(hasInvisibleCharacters(card.argumentsJson) ? { invisibleNotice: invisibleCharactersNotice } : {}),
    reason: card.reason,
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
