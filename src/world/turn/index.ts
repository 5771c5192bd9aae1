/**
 * A turn from start to close, its tool calls' results and its approvals (docs/architecture.md,
 * "Turns"). Everything outside this folder uses it through this file.
 */
export { handleApprovalClick } from "./approval-clicks.js";
export { approvalOutcome, describeWait } from "./approval-outcome.js";
export { approversFor, type DeciderCheck, deciderCheck, mayDecide } from "./approval-rights.js";
export type { ApprovalCard, ApprovalOutcome, ApprovalState, ToolResultKind } from "./approval-types.js";
export { closePendingApprovals, closeTurn, finishStoppedTurn, type OpenWork } from "./close-turn.js";
export { recordToolResult } from "./record-tool-result.js";
export { type ApprovalAsk, requestApproval } from "./request-approval.js";
export {
  type ApprovalNext,
  type ArgumentsPreview,
  expireApproval,
  settleDecidedApproval,
} from "./settle-approval.js";
export { stopTurn } from "./stop-turn.js";
export { supersedeParkedTurns } from "./supersede-turns.js";
export { chainHumans, chainStarter } from "./turn-chain.js";
export { stopOf, TurnInterrupts, type TurnStop, type TurnWatch } from "./turn-interrupts.js";
