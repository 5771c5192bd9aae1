import type { ToolCallRecord, TurnRecord } from "../world/records.js";
import type {
  ArgumentCheck,
  CallPolicy,
  ModelStepInput,
  ModelStepOutcome,
  ToolRunInput,
  ToolRunOutcome,
  TurnWorkers,
} from "../world/world-context.js";
import type { WorldSettings } from "../world/world-settings.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { noProviderText, runModelStep } from "./model-step.js";
import { postLeftFiles, runToolCall } from "./tool-run.js";
import { resolveWorkdir } from "./workdir.js";

/**
 * The agents side of a turn: model calls and tool runs behind the world's port
 * (src/world/world-context.ts). Each does its work and says how it went; the turn's loop
 * (src/world/turn/turn-loop.ts) makes every transition.
 */
export class AgentWorkers implements TurnWorkers {
  readonly policy: CallPolicy;

  constructor(private readonly runtime: AgentRuntime) {
    this.policy = runtime.policy;
  }

  modelProblem(agentName: string): string | undefined {
    const agent = this.runtime.agents.get(agentName);
    if (!agent || this.runtime.providers.has(agent.provider)) return undefined;
    this.runtime.world.logger.error(
      { provider: agent.provider, agent: agentName },
      "agent's provider is not configured",
    );
    return noProviderText(agent.name, agent.provider);
  }

  modelStep(input: ModelStepInput): Promise<ModelStepOutcome> {
    return runModelStep(this.runtime, input);
  }

  toolsOffered(agentName: string): ReadonlySet<string> {
    const tools = this.runtime.agents.get(agentName)?.tools ?? [];
    return new Set(this.runtime.tools.definitionsFor(tools).map((tool) => tool.name));
  }

  checkArguments(tool: string, argumentsJson: string): ArgumentCheck {
    return this.runtime.tools.check(tool, argumentsJson);
  }

  async precheck(tool: string, args: Record<string, unknown>, world: WorldSettings): Promise<string | undefined> {
    return this.runtime.tools.precheck(tool, args, await resolveWorkdir(world));
  }

  runTool(input: ToolRunInput): Promise<ToolRunOutcome> {
    return runToolCall(this.runtime, input);
  }

  postLeftFiles(call: ToolCallRecord, turn: TurnRecord, world: WorldSettings): Promise<string | undefined> {
    return postLeftFiles(this.runtime, call, turn, world);
  }
}
