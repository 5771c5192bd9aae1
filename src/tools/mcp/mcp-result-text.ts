import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

/** What `Client.callTool` gives: a current result, or one in the first protocol's shape. */
export type McpCallResult = Pick<CallToolResult, "content" | "structuredContent"> | { toolResult: unknown };

/**
 * The text a model reads for an MCP result: the text content joined by newlines, other content
 * described in brackets (`[image image/png, 68 bytes]`), structured content as JSON when there
 * is no content, `(no content)` when there is nothing.
 */
export function mcpResultText(result: McpCallResult): string {
  if (!("content" in result)) {
    // A result in the protocol's first shape (2024-10-07): `toolResult` instead of content.
    return typeof result.toolResult === "string"
      ? result.toolResult
      : (JSON.stringify(result.toolResult) ?? "(no content)");
  }
  const parts = (result.content ?? []).map(describeContent);
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.length === 0 ? "(no content)" : parts.join("\n");
}

function describeContent(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link ${block.name}: ${block.uri}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string")
        return `[resource ${resource.uri}]\n${resource.text}`;
      const mime = resource.mimeType ? ` ${resource.mimeType}` : "";
      const size =
        "blob" in resource && typeof resource.blob === "string" ? `, ${base64Bytes(resource.blob)} bytes` : "";
      return `[resource ${resource.uri}${mime}${size}]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
