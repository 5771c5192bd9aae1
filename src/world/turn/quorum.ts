/**
 * Quorum and escalation on a card (docs/approvals.md, "Quorum", "Reminders and escalation"):
 * a call whose tool has `approvals.quorum: N` runs only after N different approvers approved
 * it (the requester never counts; any denial denies it, through the usual press), each vote
 * stored so a quorum is met across restarts and processes; `escalate` adds people who may
 * decide once its time has passed. Also what a card shows of both, and its redraw.
 */
import type { ApprovalVote } from "../stores/approval-vote-store.js";
import type { ApprovalCard } from "../approval-types.js";
import { accessChannelFor } from "../access/access-channel.js";
import { publishCardRedraws } from "../approvals/route-card.js";
import { type ChatRef, parseChatKey, type Platform } from "../chat-ref.js";
import type { ApprovalClick, ClickResult } from "../inbound.js";
import type { ApprovalRecord, ToolCallRecord } from "../records.js";
import type { NoticeOutbox } from "../world-notice.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { choicesFor } from "./always-allow.js";
import { chainHumans } from "./turn-chain.js";

/** Longest reasoning shown on a card. */
export const reasoningLimit = 500;

/** Separates an MCP server's name from its tool's (`notes__add`; a quorum may name `notes__*`). */
const serverSeparator = "__";

/** The approvals a call of `tool` needs (`approvals.quorum`: exact name, then `<server>__*`); undefined: one press decides. */
export function quorumFor(world: Pick<WorldSettings, "quorum">, tool: string): number | undefined {
  const quorum = world.quorum;
  if (!quorum) return undefined;
  const exact = quorum[tool];
  if (exact !== undefined) return exact;
  const separator = tool.indexOf(serverSeparator);
  return separator > 0 ? quorum[`${tool.slice(0, separator)}${serverSeparator}*`] : undefined;
}

/** The id of an approval's escalation notice: once it is stored, the card is escalated. */
export function escalationNoticeId(approvalId: string): string {
  return `escalate:${approvalId}`;
}

/**
 * Who `escalate` added to the deciders of this approval on `platform`: nobody until its
 * escalation fired (its notice is stored, so the right, the card and the notice agree).
 */
export async function escalatedTo(
  context: Pick<WorldContext, "store">,
  world: Pick<WorldSettings, "escalate">,
  approval: Pick<ApprovalRecord, "id">,
  platform: Platform,
): Promise<readonly string[]> {
  const listed = world.escalate?.to[platform] ?? [];
  if (listed.length === 0) return [];
  return (await context.store.getMessage(escalationNoticeId(approval.id))) ? listed : [];
}

/** Whether this person may decide only because the approval was escalated to them. */
export async function mayDecideAsEscalated(
  context: Pick<WorldContext, "store">,
  world: Pick<WorldSettings, "escalate">,
  approval: Pick<ApprovalRecord, "id">,
  platform: Platform,
  userId: string,
): Promise<boolean> {
  return (await escalatedTo(context, world, approval, platform)).includes(userId);
}

/** What a press toward a quorum did: the quorum is met (decide now, in these names), or the press is answered. */
export type QuorumVote = { kind: "reached"; deciders: string } | { kind: "answered"; result: ClickResult };

/**
 * An approving press on a card whose call needs a quorum (undefined for a denial, a call
 * without one, or a channel that does not tell people apart: there the press decides as
 * always). The requester's press never counts; a counted vote short of the quorum redraws
 * the card ("1 of 2: Ana") and keeps its buttons.
 */
export async function voteTowardQuorum(
  context: WorldContext,
  outbox: NoticeOutbox,
  world: WorldSettings,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  click: ApprovalClick,
): Promise<QuorumVote | undefined> {
  const needed = quorumFor(world, call.name);
  if (needed === undefined || click.choice === "deny") return undefined;
  if (!accessChannelFor(context.channels, click.chat.platform).capabilities.identifiesClickers) return undefined;
  const { store, logger, clock } = context;
  const log = logger.child({ approvalId: approval.id, user: click.user.id });
  if (click.user.id === approval.requestedFor) {
    const votes = await store.listApprovalVotes(approval.id);
    log.info("a requester's own approval does not count toward the quorum");
    return {
      kind: "answered",
      result: {
        status: "not-allowed",
        text: `Your approval does not count: you asked for this call, and ${needed} other approvers must approve it (${progressWords(needed, votes)}).`,
      },
    };
  }
  const vote: ApprovalVote = {
    approvalId: approval.id,
    voterId: click.user.id,
    voterName: click.user.displayName,
    platform: click.chat.platform,
    choice: click.choice,
    at: clock(),
  };
  const { added, votes } = await store.addApprovalVote(vote);
  if (votes.length >= needed) {
    log.info({ votes: votes.length, needed }, "quorum reached");
    return { kind: "reached", deciders: votes.map((each) => each.voterName).join(", ") };
  }
  if (added) {
    log.info({ votes: votes.length, needed }, "quorum vote counted");
    await publishCardRedraw(context, outbox, world, approval, call);
  }
  const more = needed - votes.length;
  const text = added
    ? `Counted: ${progressWords(needed, votes)}. It runs after ${more} more approval${more === 1 ? "" : "s"}.`
    : `You approved already: ${progressWords(needed, votes)}.`;
  return { kind: "answered", result: { status: "decided", text } };
}

/** `1 of 2: Ana`, `0 of 2`. */
export function progressWords(needed: number, votes: readonly Pick<ApprovalVote, "voterName">[]): string {
  const names = votes.map((vote) => vote.voterName).join(", ");
  return `${votes.length} of ${needed}${names === "" ? "" : `: ${names}`}`;
}

/** What a card shows besides the call: the step's reasoning, a quorum's progress, an escalation. */
export async function cardExtras(
  context: Pick<WorldContext, "store">,
  world: Pick<WorldSettings, "quorum" | "escalate">,
  approval: ApprovalRecord,
  call: ToolCallRecord,
): Promise<Pick<ApprovalCard, "reasoning" | "quorum" | "escalatedTo">> {
  const { store } = context;
  const reasoning = (await store.getMessage(call.messageId))?.text.trim() ?? "";
  const needed = quorumFor(world, call.name);
  const votes = needed === undefined ? [] : await store.listApprovalVotes(approval.id);
  const escalated = await escalatedTo(context, world, approval, parseChatKey(approval.chatKey).platform);
  return {
    ...(reasoning === "" ? {} : { reasoning: cutReasoning(reasoning) }),
    ...(needed === undefined ? {} : { quorum: { needed, approvedBy: votes.map((vote) => vote.voterName) } }),
    ...(escalated.length === 0 ? {} : { escalatedTo: escalated }),
  };
}

function cutReasoning(text: string): string {
  const characters = [...text];
  return characters.length <= reasoningLimit ? text : `${characters.slice(0, reasoningLimit - 1).join("")}…`;
}

/**
 * Draw a pending card again as it stands now (votes, escalation), buttons kept: the card is
 * built as `requestApproval` built it, from the stored approval, call and step.
 */
export async function publishCardRedraw(
  context: WorldContext,
  outbox: NoticeOutbox,
  world: WorldSettings,
  approval: ApprovalRecord,
  call: ToolCallRecord,
): Promise<void> {
  const { store } = context;
  const turn = await store.getTurn(approval.turnId);
  const trigger = turn ? await store.getMessage(turn.triggerMessageId) : undefined;
  const humans = trigger ? await chainHumans(context, trigger) : [];
  const extras = await cardExtras(context, world, approval, call);
  const cardFor = (place: ChatRef): ApprovalCard => ({
    approvalId: approval.id,
    shortId: approval.shortId,
    agent: approval.agent,
    tool: call.name,
    argumentsJson: call.argumentsJson,
    argumentsPreview: context.previewCall(call.name, call.argumentsJson),
    reason: approval.reason,
    requestedFor: humans[0] ?? approval.requestedFor,
    choices: choicesFor(world, accessChannelFor(context.channels, place.platform)),
    expiresAt: approval.expiresAt,
    ...extras,
  });
  await publishCardRedraws(context, outbox, approval, cardFor);
}
