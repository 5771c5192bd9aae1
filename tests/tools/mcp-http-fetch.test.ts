import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../../src/config/schema.js";
import { McpServerSource } from "../../src/tools/mcp/mcp-server-source.js";
import { gzipSync } from "node:zlib";
import { nodeHttpFetch, takeNodeBody } from "../../src/http/node-http-fetch.js";
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

  it("hands a redirect to the global fetch to follow unless asked for it as it is", async () => {
    const { url, seen } = await serve((request, response, body) => {
      if (request.url === "/start") {
        response.writeHead(307, { location: "/end" });
        response.end();
      } else response.end(`followed with ${body}`);
    });
    const fetches = countGlobalFetch();
    const response = await nodeHttpFetch(`${url}/start`, { method: "POST", body: "the call" });
    expect(await response.text()).toBe("followed with the call");
    expect(fetches.calls).toBe(1);
    // The first request went over node:http, its redirect made the global fetch send it again.
    expect(seen.map((request) => request.url)).toEqual(["/start", "/start", "/end"]);
  });

  it("decodes a gzip body, as fetch does", async () => {
    const { url } = await serve((_, response) => {
      response.writeHead(200, { "content-encoding": "gzip" });
      response.end(gzipSync("data: zipped\n\n"));
    });
    expect(await (await nodeHttpFetch(url, manual)).text()).toBe("data: zipped\n\n");
    const chunks = takeNodeBody(await nodeHttpFetch(url, manual));
    expect(await chunks?.read()).toBe("data: zipped\n\n");
    expect(await chunks?.read()).toBeUndefined();
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

describe("takeNodeBody", () => {
  it("reads a body's text chunk by chunk, a character split between writes kept whole, and keeps the connection", async () => {
    const sockets = new Set<number | undefined>();
    const euro = Buffer.from("€");
    const { url } = await serve((request, response) => {
      sockets.add(request.socket.remotePort);
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(Buffer.concat([Buffer.from("data: 1"), euro.subarray(0, 1)]));
      setTimeout(() => {
        response.write(euro.subarray(1));
        response.end("\n\n");
      }, 20);
    });
    for (const round of [1, 2]) {
      const chunks = takeNodeBody(await nodeHttpFetch(url, { method: "POST", body: "{}" }));
      let text = "";
      for (let chunk = await chunks?.read(); chunk !== undefined; chunk = await chunks?.read()) text += chunk;
      expect(text, `round ${round}`).toBe("data: 1€\n\n");
    }
    expect(sockets.size).toBe(1);
  });

  it("is the body's only reader: not once its web stream has started, and its web stream not after it", async () => {
    const { url } = await serve((_, response) => response.end("body"));
    const read = await nodeHttpFetch(url, manual);
    expect(await read.text()).toBe("body");
    expect(takeNodeBody(read)).toBeUndefined();
    expect(takeNodeBody(new Response("not ours"))).toBeUndefined();

    const taken = await nodeHttpFetch(url, manual);
    const chunks = takeNodeBody(taken);
    expect(takeNodeBody(taken)).toBeUndefined();
    await expect(taken.text()).rejects.toBeInstanceOf(TypeError);
    expect(await chunks?.read()).toBe("body");
  });

  it("fails with 'terminated' when the connection drops, with the signal's reason when aborted", async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      if (request.url === "/drop") setTimeout(() => response.socket?.destroy(), 20);
    });
    const dropped = takeNodeBody(await nodeHttpFetch(`${url}/drop`, manual));
    expect(await dropped?.read()).toBe("data: one\n\n");
    const failure = await dropped?.read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("terminated");

    const controller = new AbortController();
    const aborted = takeNodeBody(await nodeHttpFetch(url, { ...manual, signal: controller.signal }));
    expect(await aborted?.read()).toBe("data: one\n\n");
    const next = aborted?.read();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(next).rejects.toBe(reason);
  });

  it("drops what follows a cancel and keeps the connection; a body that goes on is cut", async () => {
    const closed: string[] = [];
    const { url } = await serve((request, response) => {
      request.socket.once("close", () => closed.push(request.url ?? ""));
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: [DONE]\n\n");
      if (request.url === "/endless") {
        const timer = setInterval(() => response.write(": more\n\n"), 50);
        response.once("close", () => clearInterval(timer));
      } else setTimeout(() => response.end(), 20);
    });
    const ending = takeNodeBody(await nodeHttpFetch(`${url}/ends`, manual));
    expect(await ending?.read()).toBe("data: [DONE]\n\n");
    ending?.cancel();
    const endless = takeNodeBody(await nodeHttpFetch(`${url}/endless`, { ...manual, method: "POST", body: "{}" }));
    expect(await endless?.read()).toBe("data: [DONE]\n\n");
    endless?.cancel();
    await expect.poll(() => closed, { timeout: 10_000 }).toEqual(["/endless"]);
  });
});
