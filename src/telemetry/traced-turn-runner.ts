import type { TurnRunner } from "../world/world-context.js";
import { inTurnTrace, turnOfToolCall } from "./turn-trace.js";

/**
 * The same runner, each step inside its turn's trace (see turn-trace.ts). An approval's turn is
 * read from storage (`turnOfApproval`): a decided approval runs its tool in that step.
 */
export function traceTurnRunner(
  runner: TurnRunner,
  turnOfApproval: (approvalId: string) => Promise<string | undefined>,
): TurnRunner {
  const inApprovalTurn = async (approvalId: string, work: () => Promise<void>) => {
    const turnId = await turnOfApproval(approvalId);
    return turnId === undefined ? work() : inTurnTrace(turnId, work);
  };
  return {
    step: (turnId, step, options) => inTurnTrace(turnId, () => runner.step(turnId, step, options)),
    runTool: (toolCallId) => inTurnTrace(turnOfToolCall(toolCallId), () => runner.runTool(toolCallId)),
    approvalDecided: (approvalId) => inApprovalTurn(approvalId, () => runner.approvalDecided(approvalId)),
    approvalExpire: (approvalId) => inApprovalTurn(approvalId, () => runner.approvalExpire(approvalId)),
  };
}
