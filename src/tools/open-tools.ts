import type { ToolsConfig } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import { type ConnectMcpServersOptions, connectMcpServers, type McpManager } from "./mcp/mcp-manager.js";
import { ShellToolSource, type ShellToolOptions } from "./shell/shell-tool-source.js";
import { ToolRegistry } from "./tool-registry.js";

export interface OpenedTools {
  registry: ToolRegistry;
  /** The MCP servers, for `statuses()` (roundtable check, health). */
  mcp: McpManager;
  /** Close every source (stops MCP server processes). */
  close(): Promise<void>;
}

export interface OpenToolsOptions extends ConnectMcpServersOptions {
  shell?: ShellToolOptions;
}

/**
 * Every tool of a config, ready before the first model request: `shell_cmd` and each MCP
 * server (all connected at once; one that fails is logged and left out, nothing else breaks).
 */
export async function openTools(
  tools: ToolsConfig,
  logger: Logger,
  options: OpenToolsOptions = {},
): Promise<OpenedTools> {
  const mcp = await connectMcpServers(tools, logger, options);
  const shell = new ShellToolSource(tools.shell, { logger, ...options.shell });
  const registry = new ToolRegistry([shell, ...mcp.sources], logger);
  return { registry, mcp, close: () => registry.close() };
}
