import { type ApprovalNext, expireApproval, settleDecidedApproval } from "../world/turn/index.js";
import type { TurnRunner } from "../world/world-context.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { followBudgetDecision } from "./budget-ask.js";
import { continueTurn } from "./continue-turn.js";
import { executeToolCall } from "./execute-tool-call.js";
import { runModelStep } from "./run-model-step.js";

/**
 * The tool loop, one stored step at a time (docs/architecture.md, "How an event flows"). The
 * model step and tool runs are the agents' own; an approval's decision and expiry are the
 * turn's (src/world/turn), which says what runs next.
 */
export class AgentTurnRunner implements TurnRunner {
  constructor(private readonly runtime: AgentRuntime) {}

  step(turnId: string, step: number, options: { created?: boolean } = {}): Promise<void> {
    return runModelStep(this.runtime, turnId, step, options);
  }

  runTool(toolCallId: string): Promise<void> {
    return executeToolCall(this.runtime, toolCallId);
  }

  async approvalDecided(approvalId: string): Promise<void> {
    const { world, outbox } = this.runtime;
    await this.follow(await settleDecidedApproval(world, outbox, approvalId, this.preview));
  }

  async approvalExpire(approvalId: string): Promise<void> {
    const { world, outbox } = this.runtime;
    await this.follow(await expireApproval(world, outbox, approvalId, this.preview));
  }

  /** A card shows the arguments as the policy previews them; unparsable ones as they came, cut. */
  private readonly preview = (tool: string, argumentsJson: string): string => {
    const checked = this.runtime.tools.check(tool, argumentsJson);
    return checked.ok ? this.runtime.policy.preview(checked.args) : argumentsJson.slice(0, 500);
  };

  private follow(next: ApprovalNext): Promise<void> {
    switch (next.kind) {
      case "run":
        return executeToolCall(this.runtime, next.toolCallId);
      case "continue":
        return continueTurn(this.runtime, next.turnId, next.step);
      case "budget":
        return followBudgetDecision(this.runtime, next.approvalId, next.approved).then((again) =>
          again ? runModelStep(this.runtime, again.turnId, again.step) : undefined,
        );
      case "none":
        return Promise.resolve();
    }
  }
}
