/**
 * A tool call's approval, from the card to what runs next (docs/approvals.md): the request and
 * its card, the clicks and who may decide, quorum, the timers, the settlement and its outcome,
 * sticky denials, edits, *Always allow*, and the budget approvals. The turn's loop and
 * src/world/turn/index.ts use it through this file (the turn's close and its results, which
 * approvals themselves use, import the outcome and the rights directly).
 */
export { handleApprovalClick } from "./approval-clicks.js";
export { describeWait } from "./approval-outcome.js";
export { approversFor, deciderCheck, mayDecide } from "./approval-rights.js";
export { runApprovalTimer } from "./approval-timers.js";
export { parseBudgetApprovalKey } from "./budget-approval.js";
export { askPastBudget, followBudgetDecision } from "./budget-ask.js";
export { editOfCall } from "./edit-approval.js";
export { requestApproval } from "./request-approval.js";
export { type ApprovalNext, expireApproval, settleDecidedApproval } from "./settle-approval.js";
export { stickyDenialOf } from "./sticky-denial.js";
