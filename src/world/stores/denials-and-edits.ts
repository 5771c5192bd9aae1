/**
 * The records and ports of two ways to decide a card (docs/approvals.md): a denial that sticks
 * in its chat until `/reset` ("Deny with a reason") and an approver's edit of the arguments
 * ("Edit, then approve"). Their logic is the turn's (src/world/turn/sticky-denial.ts,
 * src/world/turn/edit-approval.ts).
 */

/** What is remembered of a denial: the call's key in the chat's session, who denied it and why. */
export interface DeniedCallRecord {
  chatKey: string;
  agent: string;
  tool: string;
  /** The call's hash (tool and canonical arguments), as session grants use. */
  argsHash: string;
  sessionEpoch: number;
  /** The approval whose card was denied. */
  approvalId: string;
  deniedBy: { id: string; name: string };
  reason?: string;
  createdAt: Date;
}

/** The key a sticky denial is found by. */
export type DeniedCallKey = Pick<DeniedCallRecord, "chatKey" | "agent" | "tool" | "argsHash" | "sessionEpoch">;

/** The store's part for sticky denials (stored with the decision: `ApprovalDecision.deniedCall`). */
export interface DeniedCallStore {
  /** The denial of this call in this chat's session, if one was recorded. */
  findDeniedCall(key: DeniedCallKey): Promise<DeniedCallRecord | undefined>;
}

/** An edit checked by the tool side: its compact JSON and card preview, or what is wrong with it. */
export type EditCheck = { ok: true; argumentsJson: string; preview: string } | { ok: false; problem: string };
