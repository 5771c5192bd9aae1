import type { ToolsConfig } from "../../config/schema.js";
import type { Logger } from "../../log/logger.js";
import type { McpRetryOptions, McpServerSource, McpServerStatus } from "./mcp-server-source.js";

/** All configured MCP servers, one `McpServerSource` each. */
export class McpManager {
  constructor(readonly sources: readonly McpServerSource[]) {}

  /** Each server's state, in config order (for `roundtable check` and health). */
  statuses(): McpServerStatus[] {
    return this.sources.map((source) => source.status());
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close()));
  }
}

export interface ConnectMcpServersOptions {
  retry?: McpRetryOptions;
  /** Time each server may take to start (see `McpServerSourceOptions.connectTimeoutMs`). */
  connectTimeoutMs?: number;
}

/**
 * Connect every server of `tools.mcpServers` at once and wait until each is connected or has
 * failed (a failure is logged and shown in `statuses()`, never thrown), so their tools are
 * offered from the first turn.
 */
export async function connectMcpServers(
  tools: Pick<ToolsConfig, "mcpServers" | "mcpTimeout">,
  logger: Logger,
  options: ConnectMcpServersOptions = {},
): Promise<McpManager> {
  const servers = Object.entries(tools.mcpServers);
  // The MCP SDK (its zod schemas, ajv) is loaded only when a server is configured.
  if (servers.length === 0) return new McpManager([]);
  const { McpServerSource } = await import("./mcp-server-source.js");
  const sources = servers.map(
    ([name, config]) =>
      new McpServerSource({
        name,
        config,
        defaultTimeoutMs: tools.mcpTimeout,
        logger,
        ...(options.retry === undefined ? {} : { retry: options.retry }),
        ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      }),
  );
  await Promise.all(sources.map((source) => source.connect()));
  return new McpManager(sources);
}
