/**
 * Reminders and escalation (docs/approvals.md, "Reminders and escalation"): durable timers of a
 * card, each a stored job in the chat's queue at its time (as the expiry step is), keyed by the
 * approval so it is queued once; each notice is stored under a fixed id and shown once
 * ({@link postWorldNotice}), so a timer fires once across restarts, a SIGKILL and any number of
 * processes.
 */
import { isPersonEntry } from "../access-list.js";
import { parseChatKey, type Platform } from "../chat-ref.js";
import { jobKey } from "../jobs.js";
import type { ApprovalRecord } from "../records.js";
import { type NoticeOutbox, postWorldNotice } from "../world-notice.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { describeWait } from "./approval-outcome.js";
import { approversFor } from "./approval-rights.js";
import { escalatedTo, escalationNoticeId, progressWords, publishCardRedraw, quorumFor } from "./quorum.js";

type TimerKind = "approval-remind" | "approval-escalate";

/** Queue the card's reminder and escalation (each once, by key), when due before the card expires. */
export async function queueApprovalTimers(
  context: Pick<WorldContext, "queue">,
  world: Pick<WorldSettings, "remindMs" | "escalate">,
  approval: ApprovalRecord,
): Promise<void> {
  const timers: [TimerKind, number | undefined][] = [
    ["approval-remind", world.remindMs],
    ["approval-escalate", world.escalate?.afterMs],
  ];
  for (const [kind, afterMs] of timers) {
    if (afterMs === undefined) continue;
    const runAt = new Date(approval.createdAt.getTime() + afterMs);
    if (runAt.getTime() >= approval.expiresAt.getTime()) continue;
    const payload = { kind, approvalId: approval.id } as const;
    await context.queue.add({ queue: approval.chatKey, key: jobKey(payload), payload, runAt });
  }
}

/** A card's timer at its time: nothing once the approval is decided, else its notice (once). */
export async function runApprovalTimer(
  context: WorldContext,
  outbox: NoticeOutbox,
  kind: TimerKind,
  approvalId: string,
): Promise<void> {
  const { store, worlds, logger } = context;
  const approval = await store.getApproval(approvalId);
  if (approval?.state !== "pending") return;
  const world = worlds.get(approval.world);
  const call = await store.getToolCall(approval.toolCallId);
  if (!world || !call) return;
  const chat = parseChatKey(approval.chatKey);
  const log = logger.child({ approvalId, chat: approval.chatKey });
  const votes = await store.listApprovalVotes(approvalId);
  const needed = quorumFor(world, call.name);
  const progress = needed === undefined ? "" : ` (${progressWords(needed, votes)})`;
  const what = `${approval.agent}'s call of ${call.name}, id ${approval.shortId}`;
  if (kind === "approval-remind") {
    const voted = new Set(votes.map((vote) => vote.voterId));
    const escalated = await escalatedTo(context, world, approval, chat.platform);
    const people = deciderIds(world, chat.platform, escalated).filter((id) => !voted.has(id));
    const text = `⏰ Reminder: ${what}, still waits for a decision${progress}.${mentions(people)}`;
    if (await notifyDeciders(context, outbox, approval, { id: `remind:${approvalId}`, text }))
      log.info({ people }, "approval reminder sent");
    return;
  }
  const added = world.escalate?.to[chat.platform] ?? [];
  if (added.length === 0) {
    log.info({ platform: chat.platform }, "approval escalation has nobody on this platform; nothing sent");
    return;
  }
  // The notice first: once stored, the people it names may decide (`escalatedTo`). Then the
  // card, which says so; run again, the notice is not shown twice and the redraw repeats harmlessly.
  const after = describeWait(world.escalate?.afterMs ?? 0);
  const text = `⏫ Escalated: ${what}, had no decision after ${after}${progress}; they may decide it now:${mentions(added)}`;
  if (await notifyDeciders(context, outbox, approval, { id: escalationNoticeId(approvalId), text }))
    log.info({ people: added }, "approval escalated");
  await publishCardRedraw(context, outbox, world, approval, call);
}

/**
 * Tell a card's deciders something, once under `notice.id`: today a world notice in the card's
 * chat (its thread on Slack) naming them, so the platform notifies each. The seam for
 * `approvals.route: dm`, where each decider gets it in a direct message instead.
 */
export function notifyDeciders(
  context: WorldContext,
  outbox: NoticeOutbox,
  approval: ApprovalRecord,
  notice: { id: string; text: string },
): Promise<boolean> {
  return postWorldNotice(context, outbox, { chat: parseChatKey(approval.chatKey), ...notice });
}

/** The people listed by id who may decide the card on this platform (approvers, then anyone escalated to). */
function deciderIds(world: WorldSettings, platform: Platform, escalated: readonly string[]): string[] {
  const listed = [...approversFor(world, platform), ...escalated];
  return [...new Set(listed.filter(isPersonEntry))];
}

/** ` @U1 @U2`: each id as a mention the channel renders natively (`outboundFor` resolves listed ids). */
function mentions(ids: readonly string[]): string {
  return ids.map((id) => ` @${id}`).join("");
}
