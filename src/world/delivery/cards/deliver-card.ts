/**
 * The one delivery of an approval card, in its chat and in every copy (docs/approvals.md,
 * "Where approval cards go"): posted (`approval-requested`), drawn again while pending
 * (`approval-updated`: a quorum's progress, an escalation) and closed by its outcome
 * (`approval-decided`). Each is posted with the post-once protocol (keyed, recorded the moment
 * it exists, held while the platform refuses); a copy adds only its own checks and its
 * unreachable person (`card-copy.ts`).
 */
import { RoundtableError } from "../../../errors/roundtable-error.js";
import { copyCardRef } from "../../approvals/card-copies.js";
import type { CardPublisher } from "../../approvals/route-card.js";
import type { ChannelAdapter, SentRef } from "../../channel-adapter.js";
import { chatKey } from "../../chat-ref.js";
import type { StoredEvent } from "../../events.js";
import type { WorldContext } from "../../world-context.js";
import { writerFor } from "../channel-writer.js";
import { recordDelivered } from "../delivered.js";
import type { Held } from "../hold.js";
import { postKeyFor } from "../post-keys.js";
import { recordUntilStored } from "../record-until-stored.js";
import { cannotReachCopy, copyAwaitsItsCard, copyToPost, copyUnreachable } from "./card-copy.js";
import { redrawPendingCard } from "./card-redraw.js";

type CardEvent = Extract<StoredEvent, { type: "approval-requested" | "approval-decided" | "approval-updated" }>;

/** One `deliver` step of a card's event (`Delivery.deliver`). */
export interface CardDelivery<Event extends CardEvent = CardEvent> {
  event: Event;
  adapter: ChannelAdapter;
  rerun: boolean;
  held: Held;
}

/** Deliver a card's event in its place; the event is recorded delivered here, whatever was posted. */
export async function deliverCard(
  context: WorldContext,
  publisher: CardPublisher,
  delivery: CardDelivery,
): Promise<void> {
  const { event } = delivery;
  switch (event.type) {
    case "approval-requested":
      return postCard(context, publisher, { ...delivery, event });
    case "approval-decided":
      return closeCard(context, { ...delivery, event });
    case "approval-updated":
      await redrawPendingCard(context, delivery.adapter, event);
      return recordDelivered(context.store, event);
  }
}

/** The outbound ref of the card an event is about: the approval id in its chat, `<id>@<chat>` for a copy. */
function cardRefOf(approvalId: string, event: CardEvent): string {
  return event.type !== "approval-updated" && event.copy ? copyCardRef(approvalId, chatKey(event.chat)) : approvalId;
}

/**
 * Post a card once, recorded under its ref the moment it exists; then its ids and the event
 * delivered in one write. A copy is posted only while it should be (`copyToPost`); one whose
 * person cannot be reached, or that the platform refuses past the hold, is marked unreachable.
 */
async function postCard(
  context: WorldContext,
  publisher: CardPublisher,
  { event, adapter, rerun, held }: CardDelivery<Extract<CardEvent, { type: "approval-requested" }>>,
): Promise<void> {
  const { store, logger } = context;
  const { chat, card } = event;
  const key = chatKey(chat);
  const ref = cardRefOf(card.approvalId, event);
  if (await store.getOutbound("approval", ref)) return recordDelivered(store, event);
  const copy = event.copy ? await copyToPost(context, publisher, { ...event, copy: event.copy }) : undefined;
  if (event.copy && !copy) return recordDelivered(store, event);
  const recordCard = (sent: SentRef) =>
    recordUntilStored(
      () => store.recordOutbound({ chatKey: key, refKind: "approval", refId: ref, platformMessageIds: sent.ids }),
      logger,
      { seq: event.seq, approvalId: card.approvalId },
    );
  let attempt = 0;
  const sent = await held(
    () => {
      attempt += 1;
      const post = { kind: "card", approvalId: card.approvalId, at: event.createdAt } as const;
      const postKey = postKeyFor(store, chat, post, rerun || attempt > 1);
      return writerFor(adapter, logger).postApprovalCard(chat, card, { posted: recordCard, postKey });
    },
    // A copy is not announced where it fails: it is skipped, and the card shows elsewhere.
    event.copy ? { notice: () => undefined, stopOn: cannotReachCopy(adapter) } : {},
  );
  if (!sent) {
    if (event.copy && copy) await copyUnreachable(context, publisher, { ...event, copy: event.copy }, copy);
    return recordDelivered(store, event);
  }
  // The card's ids and the event delivered: one transaction, tried until it is stored.
  await recordUntilStored(
    () =>
      store.recordOutbound(
        { chatKey: key, refKind: "approval", refId: ref, platformMessageIds: sent.ids },
        { chatKey: key, refKind: "event", refId: String(event.seq), platformMessageIds: sent.ids },
      ),
    logger,
    { seq: event.seq, approvalId: card.approvalId },
  );
}

/**
 * Close a posted card with its outcome: edited in place, else posted as a new message, which is
 * recorded as this event's delivery the moment it exists (a re-run after a crash finds the event
 * delivered, and a retry here posts nothing more). A card not posted yet makes the step wait (its
 * delivery is under way or being retried); a copy never shown takes none. The chat's card is
 * held like any delivery; a copy's is tried once (a refusal fails the step, which is retried),
 * and a person who cannot be reached there any more is only logged.
 */
async function closeCard(
  context: WorldContext,
  { event, adapter, rerun, held }: CardDelivery<Extract<CardEvent, { type: "approval-decided" }>>,
): Promise<void> {
  const { store, logger } = context;
  const { chat, outcome } = event;
  const key = chatKey(chat);
  const card = await store.getOutbound("approval", cardRefOf(outcome.approvalId, event));
  if (!card) {
    if (event.copy && !(await copyAwaitsItsCard(context, outcome.approvalId, key))) {
      return recordDelivered(store, event);
    }
    // Its card is not posted yet (its delivery is under way or being retried): try again later.
    throw new RoundtableError(
      "internal",
      event.copy
        ? `approval ${outcome.approvalId} has no posted copy in ${key} yet`
        : `approval ${outcome.approvalId} has no posted card yet`,
    );
  }
  const delivery = { chatKey: key, refKind: "event", refId: String(event.seq) } as const;
  let postedAnew: string[] | undefined;
  const recordOutcomePost = async (sent: SentRef) => {
    postedAnew = sent.ids;
    await recordUntilStored(() => store.recordOutbound({ ...delivery, platformMessageIds: sent.ids }), logger, {
      seq: event.seq,
    });
  };
  let attempt = 0;
  const show = async () => {
    if (postedAnew) return;
    attempt += 1;
    const post = { kind: "outcome", approvalId: outcome.approvalId, at: event.createdAt } as const;
    const postKey = postKeyFor(store, chat, post, rerun || attempt > 1);
    await writerFor(adapter, logger).updateApprovalCard(chat, { ids: card.platformMessageIds }, outcome, {
      posted: recordOutcomePost,
      postKey,
    });
  };
  if (event.copy) {
    try {
      await show();
    } catch (error) {
      if (!cannotReachCopy(adapter)(error)) throw error;
      logger.warn(
        { err: error, chat: key, approvalId: outcome.approvalId },
        "approval copy's outcome could not be shown",
      );
    }
  } else {
    await held(show);
  }
  // Recorded again in case that write was what failed (rare: this path only).
  if (postedAnew) return store.recordOutbound({ ...delivery, platformMessageIds: postedAnew });
  return recordDelivered(store, event);
}
