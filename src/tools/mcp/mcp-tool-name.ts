import { createHash } from "node:crypto";
import { mcpToolSeparator } from "../tool-list-entry.js";

/** Longest tool name model APIs accept (OpenAI: 64). */
export const maxToolNameLength = 64;

/** A name with only letters, digits, `_` and `-` (all model APIs accept those). */
function sanitizeNamePart(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned === "" ? "_" : cleaned;
}

/**
 * The name a model sees for an MCP tool: `<server>__<tool>`, sanitized. A name too long for
 * model APIs keeps its start and gets a short hash of the whole, so it stays unique and stable.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${sanitizeNamePart(server)}${mcpToolSeparator}${sanitizeNamePart(tool)}`;
  if (name.length <= maxToolNameLength) return name;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, maxToolNameLength - hash.length - 1)}_${hash}`;
}
