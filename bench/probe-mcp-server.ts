import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/**
 * An MCP server over Streamable HTTP (stateless) with one tool, `ping { token }`, that tells
 * the bench when it starts: the moment a tool call reaches its tool.
 */
export async function startProbeServer(onToolStart: (token: string) => void): Promise<ProbeServer> {
  const http: Server = createServer((request, response) => {
    if (request.method !== "POST" || !request.url?.startsWith("/mcp")) {
      response.writeHead(404).end();
      return;
    }
    const server = new McpServer({ name: "probe", version: "1.0.0" });
    server.registerTool(
      "ping",
      { description: "Answer pong.", inputSchema: { token: z.string() } },
      async ({ token }) => {
        onToolStart(token);
        return { content: [{ type: "text", text: "pong" }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
