/**
 * A turn from start to close, its tool calls' results and its approvals (docs/architecture.md,
 * "Turns"). Everything outside this folder uses it through this file.
 */
export { handleApprovalClick } from "./approval-clicks.js";
export { approvalOutcome, describeWait } from "./approval-outcome.js";
export { approversFor, mayDecide } from "./approval-rights.js";
export type { ApprovalCard, ApprovalOutcome, ApprovalState, ToolResultKind } from "./approval-types.js";
export { closePendingApprovals, closeTurn, finishStoppedTurn, type OpenWork } from "./close-turn.js";
export { recordToolResult } from "./record-tool-result.js";
export { stopTurn } from "./stop-turn.js";
export { chainHumans, chainStarter } from "./turn-chain.js";
export { stopOf, TurnInterrupts, type TurnStop, type TurnWatch } from "./turn-interrupts.js";
