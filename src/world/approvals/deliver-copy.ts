/**
 * Showing and closing a card's copies (docs/approvals.md, "Where approval cards go"): the
 * outbox hands a copy's `approval-requested` and `approval-decided` events here. A copy that
 * cannot be shown (the person never started the bot, blocked it, left) is marked unreachable
 * with a log line, and when no copy of a `route: dm` card can be shown, the card goes to its chat.
 */
import { RoundtableError } from "../../errors/roundtable-error.js";
import type { ApprovalCard } from "../approval-types.js";
import type { ChannelAdapter, SentRef } from "../channel-adapter.js";
import { canOpenDirectChat } from "../channel/channel-optional.js";
import { chatKey, parseChatKey } from "../chat-ref.js";
import { writerFor } from "../delivery/channel-writer.js";
import { postKeyFor } from "../delivery/post-keys.js";
import type { StoredEvent } from "../events.js";
import type { ApprovalRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import { copyCardRef } from "./card-copies.js";
import type { CardPublisher } from "./route-card.js";

type CopyContext = Pick<WorldContext, "store" | "channels" | "logger" | "worlds" | "deliveryHoldMs">;
type CopyCardEvent = Extract<StoredEvent, { type: "approval-requested" }> & {
  copy: NonNullable<Extract<StoredEvent, { type: "approval-requested" }>["copy"]>;
};
type CopyOutcomeEvent = Extract<StoredEvent, { type: "approval-decided" }>;

/** Post a copy's card once, recorded under its own ref; a copy that cannot be shown is marked so. */
export async function deliverCardCopy(
  context: CopyContext,
  publisher: CardPublisher,
  event: CopyCardEvent,
  rerun: boolean,
): Promise<void> {
  const { store, logger } = context;
  const key = chatKey(event.chat);
  const { approvalId } = event.card;
  const ref = copyCardRef(approvalId, key);
  const log = logger.child({ chat: key, approvalId, copy: event.copy.kind });
  if (await store.getOutbound("approval", ref)) return delivered(context, event);
  const copy = await store.getCardCopy(approvalId, key);
  const approval = await store.getApproval(approvalId);
  if (!copy || !approval) {
    log.warn("approval card copy not recorded; nothing posted");
    return delivered(context, event);
  }
  if (copy.state === "unreachable") {
    await fallBackToChat(context, publisher, approval, event.copy.fallback);
    return delivered(context, event);
  }
  if (copy.state === "unposted") return delivered(context, event);
  if (approval.state !== "pending") {
    // Closed before its copy was shown: none will be (its outcome then posts nothing here).
    await store.markCardCopy(approvalId, key, { state: "unposted" });
    return delivered(context, event);
  }
  const adapter = context.channels.forChat(event.chat);
  const sent = adapter ? await postCopy(context, adapter, event, ref, rerun) : undefined;
  if (!sent) {
    log.warn({ person: copy.personId }, "approval card could not be shown in this chat; that copy is skipped");
    await store.markCardCopy(approvalId, key, { state: "unreachable" });
    await fallBackToChat(context, publisher, approval, event.copy.fallback);
    return delivered(context, event);
  }
  await store.recordOutbound(
    { chatKey: key, refKind: "approval", refId: ref, platformMessageIds: sent.ids },
    { chatKey: key, refKind: "event", refId: String(event.seq), platformMessageIds: sent.ids },
  );
}

/**
 * The card, posted with the outbox's protocol (recorded the moment it exists); a refusal that
 * says the person cannot be reached, or one that lasts past `deliveryHoldMs`, gives undefined.
 */
async function postCopy(
  context: CopyContext,
  adapter: ChannelAdapter,
  event: CopyCardEvent,
  ref: string,
  rerun: boolean,
): Promise<SentRef | undefined> {
  const { store, logger } = context;
  const key = chatKey(event.chat);
  const recordCard = (sent: SentRef) =>
    store.recordOutbound({ chatKey: key, refKind: "approval", refId: ref, platformMessageIds: sent.ids });
  const holdMs = context.deliveryHoldMs ?? 30_000;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const post = { kind: "card", approvalId: event.card.approvalId, at: event.createdAt } as const;
    const postKey = postKeyFor(store, event.chat, post, rerun || attempt > 1);
    try {
      return await writerFor(adapter, logger).postApprovalCard(event.chat, event.card, { posted: recordCard, postKey });
    } catch (error) {
      const wait = Math.min(250 * 2 ** (attempt - 1), 5_000);
      const unreachable = canOpenDirectChat(adapter) && adapter.cannotReach(error);
      if (unreachable || Date.now() - started + wait > holdMs) {
        logger.warn(
          { err: error, chat: key, approvalId: event.card.approvalId, unreachable },
          "approval card copy refused",
        );
        return undefined;
      }
      logger.warn({ err: error, chat: key, attempt, retryInMs: wait }, "approval card copy refused; trying again");
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * With `route: dm`, when every copy of a pending card is unreachable: the card goes to its chat
 * (recorded as its place first; publishing again is harmless, its delivery posts it once).
 */
async function fallBackToChat(
  context: CopyContext,
  publisher: CardPublisher,
  approval: ApprovalRecord,
  fallback: ApprovalCard | undefined,
): Promise<void> {
  if (!fallback || context.worlds.get(approval.world)?.cardRouting?.route !== "dm") return;
  const { store } = context;
  const copies = await store.listCardCopies(approval.id);
  const open = copies.filter((copy) => copy.kind === "chat" || copy.state !== "unreachable");
  if (open.some((copy) => copy.kind !== "chat")) return;
  const current = await store.getApproval(approval.id);
  if (current?.state !== "pending") return;
  if (open.length === 0) {
    context.logger.warn(
      { chat: approval.chatKey, approvalId: approval.id },
      "no approver could be reached privately; the card falls back to the chat",
    );
    await store.addCardCopies([{ approvalId: approval.id, chatKey: approval.chatKey, kind: "chat" }]);
  }
  const chat = parseChatKey(approval.chatKey);
  await publisher.publish(approval.chatKey, { type: "approval-requested", chat, card: fallback });
}

/** Update a copy's card to its outcome; a copy never shown takes none, one not shown yet waits. */
export async function deliverOutcomeCopy(context: CopyContext, event: CopyOutcomeEvent, rerun: boolean): Promise<void> {
  const { store, logger } = context;
  const key = chatKey(event.chat);
  const { outcome } = event;
  const card = await store.getOutbound("approval", copyCardRef(outcome.approvalId, key));
  if (!card) {
    const copy = await store.getCardCopy(outcome.approvalId, key);
    if (copy?.state !== "open") return delivered(context, event);
    // Its card is not posted yet (its delivery is under way or being retried): try again later.
    throw new RoundtableError("internal", `approval ${outcome.approvalId} has no posted copy in ${key} yet`);
  }
  const adapter = context.channels.forChat(event.chat);
  if (!adapter) {
    logger.warn({ chat: key, approvalId: outcome.approvalId }, "approval copy's outcome: its platform is not running");
    return delivered(context, event);
  }
  const delivery = { chatKey: key, refKind: "event", refId: String(event.seq) } as const;
  const post = { kind: "outcome", approvalId: outcome.approvalId, at: event.createdAt } as const;
  try {
    await writerFor(adapter, logger).updateApprovalCard(event.chat, { ids: card.platformMessageIds }, outcome, {
      posted: (sent) => store.recordOutbound({ ...delivery, platformMessageIds: sent.ids }),
      postKey: postKeyFor(store, event.chat, post, rerun),
    });
  } catch (error) {
    if (!(canOpenDirectChat(adapter) && adapter.cannotReach(error))) throw error;
    logger.warn(
      { err: error, chat: key, approvalId: outcome.approvalId },
      "approval copy's outcome could not be shown",
    );
  }
  if (!(await store.getOutbound("event", String(event.seq)))) await delivered(context, event);
}

/** Nothing (more) to post for the event. */
function delivered(context: Pick<WorldContext, "store">, event: StoredEvent): Promise<void> {
  return context.store.recordOutbound({
    chatKey: chatKey(event.chat),
    refKind: "event",
    refId: String(event.seq),
    platformMessageIds: [],
  });
}
