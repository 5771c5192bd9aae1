import type { ToolDefinition } from "../providers/model-provider.js";

/** Context of one tool run. */
export interface ToolRunContext {
  /** The world's working directory (absolute). */
  workdir: string;
  signal: AbortSignal;
  /**
   * The caller's idea of a deadline, in milliseconds. Advisory: each source applies its own
   * configured timeout (`tools.shell.timeout`, `tools.mcpTimeout`, a server's `timeout`).
   */
  timeoutMs: number;
  /**
   * The call's own outbox (absolute, made by the service before the call, taken after it):
   * files left there are posted to the chat (`src/tools/outbox-files.ts`).
   */
  outbox?: string;
}

/**
 * What running a tool gave. `ok`/`error` are the tool's own answers (MCP `isError` → error);
 * `timeout` and `failed` are what the runner saw. `text` is what the model will read.
 */
export type ToolOutcome =
  | { kind: "ok"; text: string; files?: ToolFile[] }
  | { kind: "error"; text: string; files?: ToolFile[] }
  | { kind: "timeout"; text: string }
  | { kind: "failed"; text: string };

/**
 * A file a tool gave as its result (an MCP `image`, a `resource` blob): posted to the chat by the
 * runner. `name` is the tool's, not yet made safe; `mimeType` is what the tool said (the runner
 * types the file from its bytes).
 */
export interface ToolFile {
  name: string;
  bytes: Uint8Array;
  mimeType?: string;
}

/**
 * Capability: a source that can tell, before anyone is asked to approve, that a call's
 * arguments break its rules (beyond the JSON schema), e.g. a `cwd` outside the workdir.
 */
export interface ArgumentPrecheck {
  /** The problem with the call, or undefined when it may be asked for. */
  precheck(name: string, args: Record<string, unknown>, workdir: string): string | undefined;
}

export function hasArgumentPrecheck(source: ToolSource): source is ToolSource & ArgumentPrecheck {
  return typeof (source as Partial<ArgumentPrecheck>).precheck === "function";
}

/** A set of tools: `shell_cmd`, or one MCP server's tools. */
export interface ToolSource {
  /** Tools offered now (an MCP server that is down offers none). */
  list(): ToolDefinition[];
  /** Run one call. Never throws for a tool failure: that is an outcome. */
  call(name: string, args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome>;
  close(): Promise<void>;
}
