import type { ToolDefinition } from "../providers/model-provider.js";
import type { ToolOutcome, ToolRunContext } from "../tools/tool-source.js";

/** Arguments checked against a tool's schema, or the problem found. */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

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

/** What the approval policy says about one call. */
export interface PolicyVerdict {
  action: "run" | "ask" | "block";
  reason: string;
  /** A configured rule could not be checked: nothing, stored rules included, lets the call run unasked. */
  unchecked?: true;
}

/** The approval policy as the loop needs it. */
export interface AgentPolicy {
  decide(name: string, args: Record<string, unknown>): PolicyVerdict;
  /** Stable hash of a call (tool and canonical arguments), for session grants and the repeat guard. */
  hash(name: string, args: Record<string, unknown>): string;
  /** Arguments pretty-printed and truncated for a card. */
  preview(args: Record<string, unknown>): string;
}
