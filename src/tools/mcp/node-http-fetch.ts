import { type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * How long a response's headers, and then each chunk of its body, may keep us waiting: what
 * `fetch` (undici) allows by default (its `headersTimeout` and `bodyTimeout`).
 */
const idleTimeoutMs = 300_000;

/** Methods a request may be sent again with (RFC 9110, 9.2.2): sent twice, they do what once does. */
const idempotentMethods = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** Statuses whose response has no body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` the MCP SDK's Streamable HTTP transport is given: its requests over `node:http`
 * and `node:https` instead of the global `fetch`. The first request through the global `fetch`
 * loads undici's HTTP client and compiles its WebAssembly HTTP parser: about 12 MiB of
 * resident memory for good in the bench's world, where nothing else uses `fetch` while idle
 * (docs/performance.md, "Idle memory"). The service's own HTTP server has `node:http` loaded
 * anyway.
 *
 * It does what the SDK asks of `fetch` and answers as `fetch` does: the same `Response` class,
 * rejections as `TypeError("fetch failed")` with the cause, a body that fails with
 * `TypeError("terminated")` when the connection drops, an abort that rejects with the signal's
 * reason, a kept-alive connection the server closed left unused (what undici notices by itself,
 * reading every idle connection) and an idempotent request sent again when one still turns out
 * closed (never a POST: the server may have read it), the headers `fetch` adds (`user-agent: node`, `accept: *\/*`, a string body's
 * `content-type`), and undici's idle timeouts. The SDK reads redirects itself
 * (`redirect: "manual"`, its default `redirectPolicy`); anything else it might ask (a redirect
 * to follow, a `Request`, a form or stream body, another protocol) goes to the global `fetch`.
 */
export const nodeHttpFetch: FetchLike = (input, init = {}) => {
  const url = typeof input === "string" ? parseUrl(input) : input instanceof URL ? input : undefined;
  const body = init.body;
  if (
    url === undefined ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    init.redirect !== "manual" ||
    !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
  ) {
    return fetch(input, init);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = requestHeaders(init.headers, body);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => current?.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => signal?.removeEventListener("abort", onAbort);
    let current: ClientRequest | undefined;
    const method = (init.method ?? "GET").toUpperCase();
    const attempt = (again: boolean) => {
      if (signal?.aborted) {
        release();
        reject(signal.reason);
        return;
      }
      let settled = false;
      // Sent again, on a connection of its own (another kept-alive one may be as stale).
      const request = send(url, { method, headers, ...(again ? {} : { agent: false }) });
      current = request;
      request.setTimeout(idleTimeoutMs, () => request.destroy(new Error(`no answer within ${idleTimeoutMs} ms`)));
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        // A kept-alive connection the server closed while it was idle (Node's advice: send again),
        // for a request that may be sent twice: a POST (a tool call) the server read before the
        // connection dropped would run again, so it fails as with `fetch`.
        const retry = again && idempotentMethods.has(method) && request.reusedSocket && error.code === "ECONNRESET";
        if (retry && !signal?.aborted) return attempt(false);
        release();
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
      });
      request.on("response", (message) => {
        settled = true;
        try {
          resolve(toResponse(message, method === "HEAD", signal, release));
        } catch (error) {
          release();
          message.destroy();
          reject(new TypeError("fetch failed", { cause: error }));
        }
      });
      if (body === undefined || body === null) request.end();
      else request.end(body);
    };
    // Sent once the event loop has read what arrived (its next poll, between the two immediates):
    // a kept-alive connection the server closed meanwhile is then seen closed and not used, as
    // undici sees it, reading every idle connection. A POST needs that: it is never sent again.
    setImmediate(() => setImmediate(() => attempt(true)));
  });
};

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The request's headers, with what `fetch` adds when they are missing. */
function requestHeaders(given: RequestInit["headers"], body: string | Uint8Array | null | undefined) {
  const headers: Record<string, string> = {};
  new Headers(given).forEach((value, name) => {
    headers[name] = value;
  });
  headers["user-agent"] ??= "node";
  headers.accept ??= "*/*";
  if (typeof body === "string") headers["content-type"] ??= "text/plain;charset=UTF-8";
  if (body !== undefined && body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  return headers;
}

function toResponse(
  message: IncomingMessage,
  head: boolean,
  signal: AbortSignal | undefined,
  release: () => void,
): Response {
  const headers = new Headers();
  for (let index = 0; index + 1 < message.rawHeaders.length; index += 2) {
    headers.append(message.rawHeaders[index] as string, message.rawHeaders[index + 1] as string);
  }
  const status = message.statusCode ?? 0;
  const init = { status, statusText: message.statusMessage ?? "", headers };
  if (head || nullBodyStatuses.has(status)) {
    message.resume();
    message.once("close", release);
    return new Response(null, init);
  }
  return new Response(bodyStream(message, signal, release), init);
}

/** The body as a web stream that reads from the socket only as fast as it is read. */
function bodyStream(
  message: IncomingMessage,
  signal: AbortSignal | undefined,
  release: () => void,
): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (error: unknown) => {
        if (done) return;
        done = true;
        release();
        controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: error }));
      };
      message.on("data", (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) message.pause();
      });
      message.on("end", () => {
        if (done) return;
        done = true;
        release();
        controller.close();
      });
      message.on("error", fail);
      message.on("close", () => fail(new Error("the connection closed before the body ended")));
      message.pause();
    },
    pull() {
      message.resume();
    },
    cancel() {
      done = true;
      release();
      message.destroy();
    },
  });
}
