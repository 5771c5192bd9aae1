import type { ToolsConfig } from "../../config/schema.js";
import { silentLogger } from "../../log/logger.js";
import { type CheckRow, checkTimeoutMs, describeFailure } from "./check-row.js";

/**
 * Connects every MCP server the way the service does (the tools' own `connectMcpServers`), lists
 * their tools, and closes them again: one row per server.
 */
export async function checkMcpServers(tools: ToolsConfig): Promise<CheckRow[]> {
  const names = Object.keys(tools.mcpServers);
  if (names.length === 0) return [];
  let manager: Awaited<ReturnType<typeof import("../../tools/mcp/mcp-manager.js").connectMcpServers>>;
  try {
    const { connectMcpServers } = await import("../../tools/mcp/mcp-manager.js");
    // Failures are reported in the table, not logged; no background retries are wanted here.
    manager = await connectMcpServers(tools, silentLogger(), {
      connectTimeoutMs: checkTimeoutMs,
      retry: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
    });
  } catch (error) {
    return names.map((name) => ({ name: `mcp ${name}`, status: "FAIL", detail: describeFailure(error) }));
  }
  try {
    return manager.statuses().map((status, index): CheckRow => {
      const name = `mcp ${status.name}`;
      if (status.state !== "connected") return { name, status: "FAIL", detail: status.error ?? status.state };
      const prefix = `${status.name}__`;
      const tools = (manager.sources[index]?.list() ?? []).map((tool) =>
        tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name,
      );
      const shown = tools.length > 6 ? [...tools.slice(0, 6), "…"] : tools;
      const count = `${tools.length} tool${tools.length === 1 ? "" : "s"}`;
      return { name, status: "ok", detail: tools.length > 0 ? `${count}: ${shown.join(", ")}` : count };
    });
  } finally {
    await manager.close();
  }
}
