/**
 * Where an approval's card is shown besides its chat (docs/approvals.md, "Where approval cards
 * go"): one stored row per place, recorded before its card is posted, so a press on any copy
 * finds its approval and a decision on any copy closes every one.
 */

/**
 * `chat`: the card in the chat where the agent works (a row only under routing); `dm`: in an
 * approver's direct chat with the bot; `channel`: in the world's approvals chat.
 */
export type CardPlaceKind = "chat" | "dm" | "channel";

/**
 * `open`: recorded, its card posted or still to post; `unreachable`: the platform refused to
 * show it there (a Telegram user who never started the bot); `unposted`: the approval was
 * closed before its card was posted, so none will be.
 */
export type CardCopyState = "open" | "unreachable" | "unposted";

/** One place an approval's card is shown. */
export interface CardCopyRecord {
  approvalId: string;
  /** The chat of this copy (the origin chat for `chat`). */
  chatKey: string;
  kind: CardPlaceKind;
  /** For a `dm`: the person the chat is with (their platform id). */
  personId?: string;
  state: CardCopyState;
  /** The copy the deciding press came from (names the place on every copy's card). */
  decidedHere: boolean;
  createdAt: Date;
}

export type NewCardCopy = Pick<CardCopyRecord, "approvalId" | "chatKey" | "kind"> & { personId?: string };

/** The part of the `Store` that keeps an approval's card copies. */
export interface CardCopyStore {
  /** Record copies; a copy already recorded (same approval and chat) is left as it is. */
  addCardCopies(copies: readonly NewCardCopy[]): Promise<void>;
  /** Every copy of an approval, oldest first (copies recorded together: by chat key). */
  listCardCopies(approvalId: string): Promise<CardCopyRecord[]>;
  getCardCopy(approvalId: string, chatKey: string): Promise<CardCopyRecord | undefined>;
  /**
   * Change one copy: its state (only an `open` copy changes state, and the answer says whether
   * this call changed it), or mark it as where the decision was made.
   */
  markCardCopy(
    approvalId: string,
    chatKey: string,
    change: { state: Exclude<CardCopyState, "open"> } | { decidedHere: true },
  ): Promise<boolean>;
}

/** The outbound record of a copy's card: `<approval id>@<chat key>` (the origin's is the approval id). */
export function copyCardRef(approvalId: string, chatKey: string): string {
  return `${approvalId}@${chatKey}`;
}
