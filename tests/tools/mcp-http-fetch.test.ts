import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../../src/config/schema.js";
import { McpServerSource } from "../../src/tools/mcp/mcp-server-source.js";
import { nodeHttpFetch } from "../../src/tools/mcp/node-http-fetch.js";
import { startHttpNotesServer } from "../fakes/mcp-http-notes-server.js";
import { capturedLogger } from "./captured-logger.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A plain HTTP server answering with `handle`; what it received is in `seen`. */
async function serve(handle: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      handle(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** Counts the calls to the global `fetch` until the test ends. */
function countGlobalFetch(): { calls: number } {
  const counter = { calls: 0 };
  const original = globalThis.fetch;
  globalThis.fetch = (...arguments_: Parameters<typeof fetch>) => {
    counter.calls += 1;
    return original(...arguments_);
  };
  cleanups.push(() => {
    globalThis.fetch = original;
  });
  return counter;
}

const manual = { redirect: "manual" } as const;

describe("the MCP SDK's Streamable HTTP transport", () => {
  // Idle memory (docs/performance.md): the global fetch's client is ~12 MiB kept for good.
  it("connects, lists and calls over node:http, without the global fetch", async () => {
    const server = await startHttpNotesServer(0);
    cleanups.push(() => server.close());
    const fetches = countGlobalFetch();
    const config = toolsConfigSchema.parse({ mcpServers: { notes: { url: server.url } } }).mcpServers.notes;
    if (!config) throw new Error("no config");
    const source = new McpServerSource({
      name: "notes",
      config,
      defaultTimeoutMs: 20_000,
      logger: capturedLogger().logger,
      retry: { initialDelayMs: 60_000 },
    });
    cleanups.push(() => source.close());
    await source.connect();
    expect(source.status().state).toBe("connected");
    const signal = new AbortController().signal;
    expect(await source.call("notes__add", { text: "x" }, { workdir: "/tmp", signal, timeoutMs: 60_000 })).toEqual({
      kind: "ok",
      text: "added note 1",
    });
    expect(fetches.calls).toBe(0);
  });
});

describe("nodeHttpFetch", () => {
  it("sends the method, headers and body, with what fetch adds, and reads the answer", async () => {
    const { url, seen } = await serve((_, response, body) => {
      response.writeHead(201, "Made", { "content-type": "application/json", "x-twice": ["a", "b"] });
      response.end(JSON.stringify({ echo: body }));
    });
    const response = await nodeHttpFetch(`${url}/mcp`, {
      ...manual,
      method: "POST",
      headers: new Headers({ Authorization: "Bearer t", "content-type": "application/json" }),
      body: '{"é":1}',
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe("Made");
    expect(response.headers.get("x-twice")).toBe("a, b");
    expect(await response.json()).toEqual({ echo: '{"é":1}' });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/mcp", body: '{"é":1}' });
    expect(seen[0]?.headers).toMatchObject({
      authorization: "Bearer t",
      "content-type": "application/json",
      "content-length": "8",
      "user-agent": "node",
      accept: "*/*",
    });
  });

  it("gives a string body fetch's content type, and a 204 no body", async () => {
    const { url, seen } = await serve((_, response) => {
      response.writeHead(204);
      response.end();
    });
    const response = await nodeHttpFetch(url, { ...manual, method: "POST", body: "text" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(seen[0]?.headers["content-type"]).toBe("text/plain;charset=UTF-8");
  });

  it("returns a redirect as it is when asked to (the SDK follows it itself)", async () => {
    const { url, seen } = await serve((_, response) => {
      response.writeHead(307, { location: "/elsewhere" });
      response.end();
    });
    const response = await nodeHttpFetch(url, manual);
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/elsewhere");
    expect(seen).toHaveLength(1);
  });

  it("leaves what it does not do to the global fetch", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/start") {
        response.writeHead(302, { location: "/end" });
        response.end();
      } else response.end("followed");
    });
    const fetches = countGlobalFetch();
    const response = await nodeHttpFetch(`${url}/start`, {});
    expect(await response.text()).toBe("followed");
    expect(fetches.calls).toBe(1);
  });

  it("rejects as fetch does when nothing answers", async () => {
    const { url, server } = await serve(() => undefined);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const failure = await nodeHttpFetch(url, manual).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });

  it("streams the body; an abort fails it with the signal's reason, a dropped connection with 'terminated'", async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      if (request.url === "/drop") setImmediate(() => response.socket?.destroy());
    });
    const controller = new AbortController();
    const aborted = await nodeHttpFetch(url, { ...manual, signal: controller.signal });
    const reader = aborted.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("data: one\n\n");
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(reader?.read()).rejects.toBe(reason);
    await expect(nodeHttpFetch(url, { ...manual, signal: controller.signal })).rejects.toBe(reason);

    const dropped = await nodeHttpFetch(`${url}/drop`, manual);
    const failure = await dropped.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("terminated");
  });

  it("sends a request again when its kept-alive connection was closed by the server", async () => {
    const { url, server, seen } = await serve((_, response) => response.end("ok"));
    expect(await (await nodeHttpFetch(url, manual)).text()).toBe("ok");
    // The server drops its idle connections; the next request finds its kept-alive one closed.
    server.closeIdleConnections();
    expect(await (await nodeHttpFetch(url, { ...manual, method: "POST", body: "again" })).text()).toBe("ok");
    expect(seen.map((request) => request.method)).toEqual(["GET", "POST"]);
  });

  it("never sends a POST twice: one the server read before it dropped the connection fails, as with fetch", async () => {
    // A tools/call the server received (and may have run) before it went away is not run again.
    const { url, seen } = await serve((request, response) => {
      if (request.method === "POST") request.socket.destroy();
      else response.end("ok");
    });
    expect(await (await nodeHttpFetch(url, manual)).text()).toBe("ok");
    const failure = await nodeHttpFetch(url, { ...manual, method: "POST", body: "call" }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(seen.map((request) => request.method)).toEqual(["GET", "POST"]);
  });

  it("sends nothing when aborted before the request went out", async () => {
    const { url, seen } = await serve((_, response) => response.end("ok"));
    const controller = new AbortController();
    const reason = new Error("stop");
    const answer = nodeHttpFetch(url, { ...manual, method: "POST", body: "call", signal: controller.signal });
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
    expect(await (await nodeHttpFetch(url, manual)).text()).toBe("ok");
    expect(seen.map((request) => request.method)).toEqual(["GET"]);
  });
});
