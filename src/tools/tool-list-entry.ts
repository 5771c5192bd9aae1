import { mcpToolSeparator, shellToolName } from "../config/tool-names.js";

export { mcpToolSeparator, shellToolName };

/** The suffix that makes an entry name a whole MCP server: `notes__*`. */
const wholeServerSuffix = `${mcpToolSeparator}*`;

/**
 * Whether `entry` (an agent's `tools` item, a `tools.approval` key or a rule's `tool`) names
 * `toolName`: exactly (`notes__add`, `shell_cmd`) or as a whole server (`notes__*`).
 */
export function toolEntryMatches(entry: string, toolName: string): boolean {
  if (entry === toolName) return true;
  const server = wholeServerOf(entry);
  return server !== undefined && toolName.startsWith(`${server}${mcpToolSeparator}`);
}

/** `notes` for `notes__*`; `undefined` for an entry that names one tool. */
export function wholeServerOf(entry: string): string | undefined {
  if (!entry.endsWith(wholeServerSuffix)) return undefined;
  const server = entry.slice(0, -wholeServerSuffix.length);
  return server.length > 0 ? server : undefined;
}

/** The MCP server a tool name belongs to (`notes` for `notes__add`), if it has the form. */
export function serverOfToolName(toolName: string): string | undefined {
  const separator = toolName.indexOf(mcpToolSeparator);
  return separator > 0 ? toolName.slice(0, separator) : undefined;
}
