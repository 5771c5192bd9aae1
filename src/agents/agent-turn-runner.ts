import type { TurnRunner } from "../world/world-context.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { executeToolCall } from "./execute-tool-call.js";
import { runModelStep } from "./run-model-step.js";
import { expireApproval, settleDecidedApproval } from "./settle-approval.js";

/** The tool loop, one stored step at a time (docs/architecture.md, "How an event flows"). */
export class AgentTurnRunner implements TurnRunner {
  constructor(private readonly runtime: AgentRuntime) {}

  step(turnId: string, step: number): Promise<void> {
    return runModelStep(this.runtime, turnId, step);
  }

  runTool(toolCallId: string): Promise<void> {
    return executeToolCall(this.runtime, toolCallId);
  }

  approvalDecided(approvalId: string): Promise<void> {
    return settleDecidedApproval(this.runtime, approvalId);
  }

  approvalExpire(approvalId: string): Promise<void> {
    return expireApproval(this.runtime, approvalId);
  }
}
