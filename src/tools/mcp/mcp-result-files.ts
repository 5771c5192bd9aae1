import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolFile } from "../tool-source.js";
import type { McpCallResult } from "./mcp-result-text.js";

/** File name endings for the media types a tool most often returns (else `.bin`). */
const extensions: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "application/pdf": "pdf",
  "application/json": "json",
  "text/csv": "csv",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/html": "html",
};

function extensionOf(mimeType: string | undefined): string {
  const bare = mimeType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return extensions[bare] ?? (bare.startsWith("text/") ? "txt" : "bin");
}

/** The last path segment of a resource URI (`file:///tmp/chart.png` → `chart.png`), if it has one. */
function nameFromUri(uri: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(uri).pathname;
  } catch {
    pathname = uri;
  }
  const last = pathname
    .split("/")
    .filter((segment) => segment !== "")
    .at(-1);
  if (last === undefined) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The files in an MCP result that the chat should receive: each `image` block, and each
 * embedded `resource` that is a blob or a text with a `mimeType`. Text blocks, audio and
 * resource links are not files here (the model reads them as text). Names come from the
 * resource's URI, else `image-<n>`/`file-<n>` with an ending from the media type.
 */
export function mcpResultFiles(result: McpCallResult): ToolFile[] {
  if (!("content" in result)) return [];
  const files: ToolFile[] = [];
  for (const block of result.content ?? []) {
    const file = fileOf(block, files.length + 1);
    if (file !== undefined) files.push(file);
  }
  return files;
}

function fileOf(block: ContentBlock, position: number): ToolFile | undefined {
  if (block.type === "image") {
    return {
      name: `image-${position}.${extensionOf(block.mimeType)}`,
      bytes: new Uint8Array(Buffer.from(block.data, "base64")),
      mimeType: block.mimeType,
    };
  }
  if (block.type !== "resource") return undefined;
  const resource = block.resource;
  const name = nameFromUri(resource.uri) ?? `file-${position}.${extensionOf(resource.mimeType)}`;
  const mime = resource.mimeType === undefined ? {} : { mimeType: resource.mimeType };
  if ("blob" in resource && typeof resource.blob === "string")
    return { name, bytes: new Uint8Array(Buffer.from(resource.blob, "base64")), ...mime };
  if ("text" in resource && typeof resource.text === "string" && resource.mimeType !== undefined)
    return { name, bytes: new TextEncoder().encode(resource.text), ...mime };
  return undefined;
}
