import type { ApprovalRecord, SessionGrantKey, ToolCallRecord } from "../records.js";
import { requesterEntry } from "../access/access-list.js";
import { isBudgetApproval, parseBudgetApprovalKey } from "./budget-approval.js";
import { chatKey, type Platform } from "../chat-ref.js";
import type { ApprovalClick, ClickResult } from "../inbound.js";
import type { WorldContext } from "../world-context.js";
import { approversFor, deciderCheck } from "./approval-rights.js";
import { accessChannelFor } from "../access/access-channel.js";
import { alwaysRefusedText, mayAlwaysAllow, storedRuleFor } from "./always-allow.js";
import { queueDecidedStep, recordExpiry } from "./settle-approval.js";
import { markDecidedHere, pressedCopy, requesterOn } from "../approvals/copy-press.js";
import type { NoticeOutbox } from "../world-notice.js";
import { mayDecideAsEscalated, quorumFor, voteTowardQuorum } from "./quorum.js";
import { checkEditClick } from "./edit-approval.js";
import { deniedCallFor } from "./sticky-denial.js";

const choiceWords = {
  once: "approved once",
  session: "approved for this session",
  deny: "denied",
  always: "always allowed",
  edit: "approved once with your edit",
} as const;

/** Longest denial reason kept (a longer one is cut). */
const maxReasonLength = 1000;

/**
 * A button press: find the approval, check that it belongs to this chat and world, that the
 * user may decide, and that nobody decided first; record the decision; queue its effect.
 */
export async function handleApprovalClick(
  context: WorldContext,
  click: ApprovalClick,
  outbox: NoticeOutbox,
): Promise<ClickResult> {
  const { store, logger, worlds, clock } = context;
  const key = chatKey(click.chat);
  const log = logger.child({ platform: click.chat.platform, chat: key, user: click.user.id });

  // No claim on the press's platform id: a process killed between such a claim and the decision
  // would make the redelivered press a "duplicate" and lose it. `decideApproval` (first decision
  // wins) is the dedupe, and a press on a decided approval re-queues its effect.

  const approval = await findApproval(context, key, click.approvalId);
  if (!approval && click.approvalId === "")
    return { status: "unknown", text: "There is no pending approval in this chat." };
  if (!approval) {
    log.warn({ approvalId: click.approvalId }, "click for an unknown approval refused");
    return { status: "unknown", text: "This approval does not exist (or is not from this chat)." };
  }
  // A press on a copy (an approver's DM, the approvals chat) decides the card of its own chat.
  const copy = await pressedCopy(context, approval, key, click.user.id);
  if (copy === "not-theirs") {
    log.warn({ approvalId: approval.id }, "click on someone else's DM copy refused");
    return { status: "not-allowed", text: "You are not allowed to decide this approval: this copy is someone else's." };
  }
  const originKey = copy ? approval.chatKey : key;
  const world = copy ? worlds.get(approval.world) : worlds.worldFor(click.chat);
  // A budget card (`overBudget: ask`) has no call behind it: its key names its turn.
  const budget = isBudgetApproval(approval);
  const call = budget ? undefined : await store.getToolCall(approval.toolCallId);
  const owned =
    approval.chatKey === originKey &&
    world !== undefined &&
    approval.world === world.name &&
    (budget
      ? parseBudgetApprovalKey(approval.toolCallId)?.turnId === approval.turnId
      : call !== undefined &&
        call.agent === approval.agent &&
        call.turnId === approval.turnId &&
        call.chatKey === originKey);
  if (!owned || !world) {
    log.warn(
      { approvalId: approval.id, approvalChat: approval.chatKey },
      "click with a foreign or forged approval id refused",
    );
    return { status: "unknown", text: "This approval does not exist (or is not from this chat)." };
  }
  const mayDecide = deciderCheck(context, world, click.chat, click.user);
  // A budget card raises the chain starter's (or the world's) cap: never theirs to decide as
  // its requester, only the listed approvers' (docs/budgets.md).
  const escalated = await mayDecideAsEscalated(context, world, approval, click.chat.platform, click.user.id);
  if (!escalated && !(await mayDecide(budget ? undefined : requesterOn(approval, click.chat.platform)))) {
    log.warn({ approvalId: approval.id }, "click by someone not allowed to decide refused");
    return { status: "not-allowed", text: notAllowedText(world, click.chat.platform, budget) };
  }
  // *Always allow* makes a rule: only a decider listed by id may (docs/approvals.md, "Always allow").
  const channel = accessChannelFor(context.channels, click.chat.platform);
  if (click.choice === "always" && (budget || !call || !mayAlwaysAllow(world, channel, click.user))) {
    log.warn({ approvalId: approval.id }, "always allow by someone not listed by id refused");
    return { status: "not-allowed", text: alwaysRefusedText(world) };
  }
  if (approval.state !== "pending") return alreadyDecided(context, approval);
  if (clock().getTime() >= approval.expiresAt.getTime()) return expireLate(context, approval.id);
  // An edit is an approval (by someone allowed to decide, checked above) of the edited call.
  const edit =
    click.choice === "edit" ? checkEditClick(context, world, budget ? undefined : call?.name, click) : undefined;
  if (edit?.ok && call && quorumFor(world, call.name) !== undefined) {
    log.warn({ approvalId: approval.id }, "edit of a call that needs a quorum refused");
    return {
      status: "not-allowed",
      text: "This call needs several approvals: an edit is not taken for it; nothing was decided.",
    };
  }
  if (edit && !edit.ok) {
    log.warn({ approvalId: approval.id, refused: edit.result.text }, "edit refused");
    return edit.result;
  }
  // `approvals.quorum`: a press short of it is counted and answered; the one that meets it decides.
  const vote = call ? await voteTowardQuorum(context, outbox, world, approval, call, click) : undefined;
  if (vote?.kind === "answered") return vote.result;

  const state = click.choice === "deny" ? "denied" : "approved";
  const sessionGrant =
    click.choice === "session" && call ? await sessionGrantFor(context, originKey, approval, call) : undefined;
  const argsHash = click.choice === "always" && call ? context.hashCall(call.name, call.argumentsJson) : undefined;
  const storedRule =
    argsHash === undefined || !call
      ? undefined
      : storedRuleFor(world, approval, call, argsHash, { ...click.user, platform: click.chat.platform }, clock());
  if (click.choice === "always" && storedRule === undefined)
    return { status: "not-allowed", text: "These arguments cannot be matched by a rule; nothing was decided." };
  // A reason is read by the model and shown on the card: kept to a paragraph.
  const reason = click.reason?.trim().slice(0, maxReasonLength);
  const deniedCall =
    state === "denied" && call ? await deniedCallFor(context, approval, call, click.user, reason, clock()) : undefined;
  const decision = {
    state,
    choice: click.choice,
    actorId: click.user.id,
    actorName: vote?.kind === "reached" ? vote.deciders : click.user.displayName,
    at: clock(),
    ...(reason === undefined || reason === "" ? {} : { note: reason }),
    ...(sessionGrant === undefined ? {} : { sessionGrant }),
    ...(storedRule === undefined ? {} : { storedRule }),
    ...(deniedCall === undefined ? {} : { deniedCall }),
    ...(edit?.ok ? { editedArgumentsJson: edit.argumentsJson } : {}),
  } as const;
  const result = await store.decideApproval(approval.id, decision);
  if (!result.won) return alreadyDecided(context, result.approval);
  log.info({ approvalId: approval.id, choice: click.choice }, "approval decided");
  await markDecidedHere(context, world, approval.id, key);

  await queueDecidedStep(context, result.approval);
  if (storedRule)
    return {
      status: "decided",
      text: `Always allowed: rule ${storedRule.id}, until ${utcMinute(storedRule.expiresAt)}. This call runs now.`,
    };
  return { status: "decided", text: `${capitalize(choiceWords[click.choice])}.` };
}

/**
 * The grant a "for this session" decision carries, stored with the decision in one transaction.
 * It belongs to the session as it is at the click (a later /reset ends it).
 */
async function sessionGrantFor(
  context: WorldContext,
  key: string,
  approval: ApprovalRecord,
  call: ToolCallRecord,
): Promise<SessionGrantKey | undefined> {
  const argsHash = context.hashCall(call.name, call.argumentsJson);
  const chat = await context.store.getChat(key);
  if (argsHash === undefined || !chat) return undefined;
  return { chatKey: key, agent: approval.agent, tool: call.name, argsHash, sessionEpoch: chat.sessionEpoch };
}

async function findApproval(context: WorldContext, key: string, id: string): Promise<ApprovalRecord | undefined> {
  const { store } = context;
  if (id === "") {
    const pending = await store.listApprovals({ chatKey: key, states: ["pending"] });
    return pending.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0];
  }
  return (await store.getApproval(id)) ?? (await store.getApprovalByShortId(key, id));
}

/**
 * The answer for a later press. The decision's step is queued again (deduped by key): if the
 * process died right after the first decision was stored, this press finishes its effect.
 */
async function alreadyDecided(context: WorldContext, approval: ApprovalRecord): Promise<ClickResult> {
  if (approval.state === "expired")
    return { status: "expired", text: "This approval has expired; nothing was decided." };
  if (approval.state === "approved" || approval.state === "denied") await queueDecidedStep(context, approval);
  const who = approval.decidedByName ?? "roundtable";
  const what = approval.state === "approved" && approval.choice ? choiceWords[approval.choice] : approval.state;
  return { status: "already-decided", text: `Already decided by ${who} (${what}).` };
}

/**
 * A press after the deadline, before the expiry step ran: the expiry is recorded now, the one
 * way an approval expires ({@link recordExpiry}), and its effect queued; the press decides nothing.
 */
async function expireLate(context: WorldContext, approvalId: string): Promise<ClickResult> {
  const approval = await recordExpiry(context, approvalId, "late click");
  if (!approval) return { status: "unknown", text: "This approval does not exist (or is not from this chat)." };
  if (approval.state !== "expired") return alreadyDecided(context, approval);
  await queueDecidedStep(context, approval);
  return { status: "expired", text: "This approval has expired; nothing was decided." };
}

/** Why a press was refused, naming who may decide in words. */
function notAllowedText(world: Parameters<typeof approversFor>[0], platform: Platform, budget: boolean): string {
  const list = approversFor(world, platform);
  const onlyRequester = !budget && list.length === 1 && list[0] === requesterEntry;
  return onlyRequester
    ? "You are not allowed to decide this approval: only the person who asked may."
    : "You are not allowed to decide this approval: only this world's approvers may.";
}

function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
