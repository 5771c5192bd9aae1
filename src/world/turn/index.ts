/**
 * A turn from start to close, its tool calls' results and its approvals (docs/architecture.md,
 * "Turns"). Everything outside this folder uses it through this file, but the world engine,
 * which runs the turn's loop (./turn-loop.ts; not exported here: the policy modules use this
 * file, and the loop runs the policy hooks). A turn's transitions are the loop's own: none is
 * exported but the start, the close and the stop.
 */
export {
  approversFor,
  deciderCheck,
  describeWait,
  handleApprovalClick,
  mayDecide,
  runApprovalTimer,
} from "./approvals/index.js";
export {
  closePendingApprovals,
  closeTurn,
  stopTurn,
  supersedeParkedTurns,
} from "./close-turn.js";
export { chainHumans, chainStarter } from "./turn-chain.js";
export { countPolicyAnswer, startTurn } from "./turn-state.js";
export { turnIdFor } from "../ids.js";
export { TurnInterrupts } from "./turn-interrupts.js";
