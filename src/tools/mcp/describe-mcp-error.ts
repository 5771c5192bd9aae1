import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** A connection or call failure in one line: the cause a person (or a model) can act on. */
export function describeMcpError(error: unknown): string {
  if (error instanceof StreamableHTTPError) {
    return error.code === undefined ? error.message : `HTTP ${error.code}: ${error.message}`;
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && "path" in error) {
      return `command not found: ${JSON.stringify((error as NodeJS.ErrnoException).path)} (ENOENT)`;
    }
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
