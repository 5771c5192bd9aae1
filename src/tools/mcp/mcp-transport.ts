import path from "node:path";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../config/schema.js";
import { nodeHttpFetch } from "../../http/node-http-fetch.js";

export type McpTransportKind = "stdio" | "http";

/**
 * The transport for one configured server. stdio: the SDK's default environment (HOME, PATH,
 * USER, …) plus the configured `env`, never the service's own secrets; `cwd` relative to the
 * service's directory; stderr handed to `onStderr` line by line. HTTP: Streamable HTTP with the
 * configured headers.
 */
export function createMcpTransport(
  config: McpServerConfig,
  onStderr: (line: string) => void,
): { transport: Transport; kind: McpTransportKind } {
  if ("url" in config) {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      // Over node:http: the global fetch's client is ~12 MiB that an idle process would keep.
      fetch: nodeHttpFetch,
    });
    return { transport, kind: "http" };
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    stderr: "pipe",
    ...(config.cwd === undefined ? {} : { cwd: path.resolve(config.cwd) }),
  });
  let partial = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") onStderr(line);
  });
  return { transport, kind: "stdio" };
}

/** The transport kind a config declares. */
export function transportKindOf(config: McpServerConfig): McpTransportKind {
  return "url" in config ? "http" : "stdio";
}
