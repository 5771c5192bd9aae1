/**
 * A press on a card's copy (docs/approvals.md, "Where approval cards go"): the copy must be
 * recorded in the chat pressed in (an approval id from elsewhere finds nothing), a DM's copy is
 * its person's alone, and `requester` counts only on the platform the request came from.
 */
import type { Platform } from "../chat-ref.js";
import { parseChatKey } from "../chat-ref.js";
import type { ApprovalRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import type { CardCopyRecord } from "./card-copies.js";

/**
 * The copy pressed in chat `key`: undefined when the press is in the card's own chat or no copy
 * of it is recorded there (the caller refuses it as not from this chat), `not-theirs` for a DM
 * copy pressed by someone else.
 */
export async function pressedCopy(
  context: Pick<WorldContext, "store">,
  approval: ApprovalRecord,
  key: string,
  presserId: string,
): Promise<CardCopyRecord | "not-theirs" | undefined> {
  if (approval.chatKey === key) return undefined;
  const copy = await context.store.getCardCopy(approval.id, key);
  if (!copy || copy.kind === "chat") return undefined;
  if (copy.kind === "dm" && copy.personId !== presserId) return "not-theirs";
  return copy;
}

/** Who may decide as the requester on `platform`: the requester's id is a platform id, so only on theirs. */
export function requesterOn(approval: ApprovalRecord, platform: Platform): string | undefined {
  return parseChatKey(approval.chatKey).platform === platform ? approval.requestedFor : undefined;
}

/** Record the place of the winning press (with routing; it names the place on every copy's card). */
export async function markDecidedHere(
  context: Pick<WorldContext, "store">,
  world: Pick<WorldSettings, "cardRouting">,
  approvalId: string,
  key: string,
): Promise<void> {
  if (world.cardRouting === undefined) return;
  await context.store.markCardCopy(approvalId, key, { decidedHere: true });
}
