import type { ToolDefinition } from "../providers/model-provider.js";
import type { ToolOutcome, ToolRunContext } from "../tools/tool-source.js";
import type { ArgumentCheck, CallPolicy } from "../world/world-context.js";

/** The tools as the loop needs them (implemented over the tool registry). */
export interface AgentTools {
  /** The definitions offered to an agent whose config lists `toolList`. */
  definitionsFor(toolList: string[]): ToolDefinition[];
  /** Parse and check the model's arguments text against the tool's schema. */
  check(name: string, argumentsJson: string): ArgumentCheck;
  /** A tool's own rules beyond its schema, checked before approval (e.g. shell_cmd's `cwd`). */
  precheck(name: string, args: Record<string, unknown>, workdir: string): string | undefined;
  call(name: string, args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome>;
}

/** The approval policy as the loop needs it (the port's {@link CallPolicy}). */
export type AgentPolicy = CallPolicy;
