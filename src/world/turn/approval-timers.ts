/**
 * Reminders and escalation (docs/approvals.md, "Reminders and escalation"): durable timers of a
 * card, each a stored job in the chat's queue at its time (as the expiry step is), keyed by the
 * approval so it is queued once; each notice is stored under a fixed id and shown once
 * ({@link postWorldNotice}), so a timer fires once across restarts, a SIGKILL and any number of
 * processes.
 */
import { isPersonEntry } from "../access/access-list.js";
import { copyCardRef } from "../approvals/card-copies.js";
import { type ChatRef, parseChatKey, type Platform } from "../chat-ref.js";
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
    const waiting = (platform: Platform) =>
      deciderIds(world, platform, platform === chat.platform ? escalated : []).filter((id) => !voted.has(id));
    const people = waiting(chat.platform);
    const reminder = (place: NoticePlace): string | undefined => {
      if (place.kind === "dm") {
        // Their own copy: no mention needed; one who has approved already is not reminded.
        if (voted.has(place.personId)) return undefined;
        return `⏰ Reminder: ${what}, still waits for your decision${progress}.`;
      }
      const named = place.kind === "chat" ? people : waiting(place.platform);
      return `⏰ Reminder: ${what}, still waits for a decision${progress}.${mentions(named)}`;
    };
    const sent = await notifyDeciders(context, outbox, approval, `remind:${approvalId}`, reminder);
    if (sent > 0) log.info({ people, places: sent }, "approval reminder sent");
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
  if (await postWorldNotice(context, outbox, { chat, id: escalationNoticeId(approvalId), text }))
    log.info({ people: added }, "approval escalated");
  await publishCardRedraw(context, outbox, world, approval, call);
}

/** One place a card is shown, where its deciders are told something. */
export type NoticePlace =
  | { kind: "chat"; platform: Platform }
  | { kind: "channel"; platform: Platform }
  | { kind: "dm"; platform: Platform; personId: string };

/**
 * Tell a card's deciders something where its card is (docs/approvals.md, "Reminders and
 * escalation"): a world notice in the card's chat (its thread on Slack), and under
 * `approvals.route` / `channel` in each open copy instead (each approver's DM, the approvals
 * chat; the chat only when the card is shown there, so a `route: dm` group never sees it). Each
 * is stored under a fixed id before it is shown (`<id>` in the chat, `<id>@<copy's chat>` in a
 * copy), so it is shown once per place across restarts and processes. `textFor` gives each
 * place's text, or undefined for none there. The answer: how many places were told now.
 */
export async function notifyDeciders(
  context: WorldContext,
  outbox: NoticeOutbox,
  approval: ApprovalRecord,
  id: string,
  textFor: (place: NoticePlace) => string | undefined,
): Promise<number> {
  const origin = parseChatKey(approval.chatKey);
  const routed = context.worlds.get(approval.world)?.cardRouting !== undefined;
  const copies = routed ? await context.store.listCardCopies(approval.id) : [];
  // No copies: not routed, or asked before routing was configured (its card is in its chat).
  const places: { chat: ChatRef; id: string; place: NoticePlace }[] =
    copies.length === 0 ? [{ chat: origin, id, place: { kind: "chat", platform: origin.platform } }] : [];
  for (const copy of copies) {
    if (copy.kind === "chat") {
      places.push({ chat: origin, id, place: { kind: "chat", platform: origin.platform } });
      continue;
    }
    if (copy.state !== "open") continue;
    const chat = parseChatKey(copy.chatKey);
    const place: NoticePlace =
      copy.kind === "dm"
        ? { kind: "dm", platform: chat.platform, personId: copy.personId ?? "" }
        : { kind: "channel", platform: chat.platform };
    places.push({ chat, id: copyCardRef(id, copy.chatKey), place });
  }
  let told = 0;
  for (const { chat, id: noticeId, place } of places) {
    const text = textFor(place);
    if (text !== undefined && (await postWorldNotice(context, outbox, { chat, id: noticeId, text }))) told += 1;
  }
  return told;
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
