/**
 * A turn from start to close, its tool calls' results and its approvals (docs/architecture.md,
 * "Turns"). Everything outside this folder uses it through this file, but the world engine,
 * which runs the turn's loop (./turn-loop.ts; not exported here: the policy modules use this
 * file, and the loop runs the policy hooks).
 */
export { handleApprovalClick } from "./approval-clicks.js";
export { describeWait } from "./approval-outcome.js";
export { approversFor, deciderCheck, mayDecide } from "./approval-rights.js";
export { closePendingApprovals, closeTurn, finishStoppedTurn, stopTurn, supersedeParkedTurns } from "./close-turn.js";
export { recordToolResult } from "./record-tool-result.js";
export { editOfCall } from "./edit-approval.js";
export { stickyDenialOf } from "./sticky-denial.js";
export { requestApproval } from "./request-approval.js";
export { type BudgetAsk, budgetTool, parseBudgetApprovalKey, requestBudgetApproval } from "./budget-approval.js";
export { type ApprovalNext, expireApproval, settleDecidedApproval } from "./settle-approval.js";
export { runApprovalTimer } from "./approval-timers.js";
export { chainHumans, chainStarter } from "./turn-chain.js";
export {
  beginStep,
  countPolicyAnswer,
  markCallRunning,
  parkTurn,
  resumeTurn,
  startTurn,
} from "./turn-state.js";
export { triggerOfTurn, turnIdFor } from "../ids.js";
export { stopOf, TurnInterrupts, type TurnStop } from "./turn-interrupts.js";
