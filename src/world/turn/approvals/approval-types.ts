import type { ApprovalChoice, ApprovalInput } from "../../inbound.js";

/** Every kind of tool result: `ok` and `error` are real, the rest synthetic. */
export type ToolResultKind =
  | "ok"
  | "error"
  | "denied"
  | "expired"
  | "blocked"
  | "invalid"
  | "timeout"
  | "failed"
  | "interrupted"
  | "skipped";

export type ApprovalState = "pending" | "approved" | "denied" | "expired" | "skipped";

/** What an approval card shows. */
export interface ApprovalCard {
  /** Opaque id carried by the buttons. */
  approvalId: string;
  /** Short id, unique in the chat, for typing (`/approve once 7f3a`). */
  shortId: string;
  agent: string;
  tool: string;
  /** The arguments as compact JSON. */
  argumentsJson: string;
  /** The arguments pretty-printed and truncated for display. */
  argumentsPreview: string;
  /** Why approval is needed (policy). */
  reason: string;
  /** Name of the person whose message started the turn. */
  requestedFor: string;
  choices: readonly ApprovalChoice[];
  /** Buttons that ask for text first: *Deny with reason…*, *Edit…* (absent: none). */
  inputs?: readonly ApprovalInput[];
  expiresAt: Date;
  /**
   * The text the model wrote in the same step before its tool calls, at most 500 characters
   * (cut with `…`); channels escape it as they escape arguments (docs/approvals.md).
   */
  reasoning?: string;
  /** A quorum's progress (`approvals.quorum`): approvals needed, and who approved so far, by name. */
  quorum?: { needed: number; approvedBy: readonly string[] };
  /** Who `approvals.escalate` added as deciders (ids as listed for the card's platform). */
  escalatedTo?: readonly string[];
}

/** What an approval card shows once decided. */
export interface ApprovalOutcome {
  approvalId: string;
  shortId: string;
  agent: string;
  tool: string;
  argumentsPreview: string;
  state: Exclude<ApprovalState, "pending">;
  choice?: ApprovalChoice;
  /** Who decided; `where` names the copy they decided on, where the card has several ("in a direct message"). */
  decidedBy?: { id: string; name: string; where?: string };
  /** Why it was closed without a decision (`chat reset by ana`, `superseded by a newer message …`). */
  note?: string;
  /** The reason a denial gave. */
  reason?: string;
  at: Date;
}
