import type { ToolsConfig } from "./schema.js";

/** The built-in tool. */
export const shellToolName = "shell_cmd";

/** Separates an MCP server's name from its tool's name: `notes__add`. */
export const mcpToolSeparator = "__";

/**
 * Why `tool` names no tool this config can offer, or `undefined` when it does. Accepted:
 * `shell_cmd`, `<server>__<tool>` and `<server>__*` for a declared MCP server.
 */
export function checkToolName(tool: string, tools: ToolsConfig): string | undefined {
  if (tool === shellToolName) {
    return tools.shell.enabled ? undefined : "shell_cmd is turned off (tools.shell.enabled: false)";
  }
  const separator = tool.indexOf(mcpToolSeparator);
  const servers = Object.keys(tools.mcpServers);
  if (separator <= 0 || separator + mcpToolSeparator.length === tool.length) {
    return `unknown tool ${JSON.stringify(tool)} (expected shell_cmd, <server>__<tool> or <server>__*${serverList(servers)})`;
  }
  const server = tool.slice(0, separator);
  if (!servers.includes(server)) {
    return `unknown MCP server ${JSON.stringify(server)} in ${JSON.stringify(tool)} (${
      servers.length > 0 ? `tools.mcpServers: ${servers.join(", ")}` : "no tools.mcpServers are declared"
    })`;
  }
  return undefined;
}

function serverList(servers: string[]): string {
  return servers.length > 0 ? `; servers: ${servers.join(", ")}` : "";
}
