/** Channels' way in to the approval types; the turn folder owns them (docs/architecture.md, "Turns"). */
export type { ApprovalCard, ApprovalOutcome, ApprovalState, ToolResultKind } from "./turn/approvals/approval-types.js";
