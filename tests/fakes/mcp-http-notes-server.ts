import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createNotesServer, NotesStore } from "./mcp-notes-tools.js";

export interface HttpNotesServer {
  url: string;
  notes: NotesStore;
  /** Authorization headers of the requests received, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * The notes MCP server over Streamable HTTP, stateless (a new server and transport per
 * request), on 127.0.0.1 with an ephemeral port. Serves `/mcp`.
 */
export async function startHttpNotesServer(port = 0): Promise<HttpNotesServer> {
  const notes = new NotesStore();
  const authorizations: (string | undefined)[] = [];
  const http: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (!request.url?.startsWith("/mcp")) {
      response.writeHead(404).end();
      return;
    }
    if (request.method !== "POST") {
      response.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const server = createNotesServer({ notes });
    // No `sessionIdGenerator` (the SDK's `sessionIdGenerator: undefined`): stateless.
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
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    notes,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
