/**
 * What a card's copy adds to its delivery (docs/approvals.md, "Where approval cards go"): a copy
 * is posted only while it is recorded open and its approval pending; a copy that cannot be
 * shown (the person never started the bot, blocked it, left) is marked unreachable with a log
 * line, and when no copy of a `route: dm` card can be shown, the card goes to its chat. The
 * posting itself is the card delivery's (`deliver-card.ts`), one path for the chat and copies.
 */
import type { ApprovalCard } from "../../approval-types.js";
import { canOpenDirectChat } from "../../channel/channel-optional.js";
import { chatKey, parseChatKey } from "../../chat-ref.js";
import type { StoredEvent } from "../../events.js";
import type { ApprovalRecord } from "../../records.js";
import type { WorldContext } from "../../world-context.js";
import type { CardPublisher } from "../../approvals/route-card.js";

export type CopyContext = Pick<WorldContext, "store" | "channels" | "logger" | "worlds" | "deliveryHoldMs">;
export type CopyCardEvent = Extract<StoredEvent, { type: "approval-requested" }> & {
  copy: NonNullable<Extract<StoredEvent, { type: "approval-requested" }>["copy"]>;
};

/** Whether a copy's platform said its person cannot be reached (no retry cures it). */
export function cannotReachCopy(adapter: object): (error: unknown) => boolean {
  return (error) => canOpenDirectChat(adapter) && adapter.cannotReach(error);
}

/** A copy about to be posted: its approval and, for a DM, its person. */
export interface CopyToPost {
  approval: ApprovalRecord;
  personId?: string;
}

/**
 * The copy whose card is to be posted now (recorded, open, its approval pending), or undefined.
 * A copy found unreachable falls back to the chat (`route: dm`); one whose approval closed
 * before it was shown is marked `unposted` (its outcome then posts nothing there).
 */
export async function copyToPost(
  context: CopyContext,
  publisher: CardPublisher,
  event: CopyCardEvent,
): Promise<CopyToPost | undefined> {
  const { store, logger } = context;
  const key = chatKey(event.chat);
  const { approvalId } = event.card;
  const copy = await store.getCardCopy(approvalId, key);
  const approval = await store.getApproval(approvalId);
  if (!copy || !approval) {
    logger.warn({ chat: key, approvalId, copy: event.copy.kind }, "approval card copy not recorded; nothing posted");
    return undefined;
  }
  if (copy.state === "unreachable") {
    await fallBackToChat(context, publisher, approval, event.copy.fallback);
    return undefined;
  }
  if (copy.state === "unposted") return undefined;
  if (approval.state !== "pending") {
    // Closed before its copy was shown: none will be (its outcome then posts nothing here).
    await store.markCardCopy(approvalId, key, { state: "unposted" });
    return undefined;
  }
  return { approval, ...(copy.personId === undefined ? {} : { personId: copy.personId }) };
}

/** A copy's card could not be posted: the copy is unreachable, and a `route: dm` card may fall back to its chat. */
export async function copyUnreachable(
  context: CopyContext,
  publisher: CardPublisher,
  event: CopyCardEvent,
  copy: CopyToPost,
): Promise<void> {
  const { store, logger } = context;
  const key = chatKey(event.chat);
  const { approvalId } = event.card;
  logger.warn(
    { chat: key, approvalId, copy: event.copy.kind, person: copy.personId },
    "approval card could not be shown in this chat; that copy is skipped",
  );
  await store.markCardCopy(approvalId, key, { state: "unreachable" });
  await fallBackToChat(context, publisher, copy.approval, event.copy.fallback);
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

/** Whether a copy whose card is not posted will take an outcome later: it is open (its card is on its way). */
export async function copyAwaitsItsCard(
  context: Pick<WorldContext, "store">,
  approvalId: string,
  key: string,
): Promise<boolean> {
  return (await context.store.getCardCopy(approvalId, key))?.state === "open";
}
