import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { modelStreamPacer, type ReadPacer } from "./read-pacer.js";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What this `fetch` takes and returns: the global `fetch`'s shape (the SDKs' `fetch` option). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * How long a response's headers, and then each chunk of its body, may keep us waiting: what
 * `fetch` (undici) allows by default (its `headersTimeout` and `bodyTimeout`).
 */
const idleTimeoutMs = 300_000;

/** How long a body read no further may go on before its connection is closed ({@link NodeBody.cancel}). */
const drainMs = 1_000;

/** Methods a request may be sent again with (RFC 9110, 9.2.2): sent twice, they do what once does. */
const idempotentMethods = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** Statuses whose response has no body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** Statuses `fetch` follows (`redirect: "follow"`, its default) when they say where to. */
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * This process's keep-alive pools for these requests. Node's global agents keep no more than
 * 256 idle connections; with hundreds of model streams at once the surplus would be closed after
 * each call and opened again for the next (as with Telegram's calls, docs/performance.md).
 */
const pools = {
  http: new HttpAgent({ keepAlive: true, maxFreeSockets: 4096 }),
  https: new HttpsAgent({ keepAlive: true, maxFreeSockets: 4096 }),
};

/**
 * The `fetch` given to the SDKs that call HTTP servers of their own: the MCP SDK's Streamable
 * HTTP transport and Slack's Web API client; the OpenAI and Anthropic SDKs get
 * {@link modelStreamFetch}. Their requests go over `node:http` and `node:https` instead
 * of the global `fetch`, for two reasons (docs/performance.md). The first request through the
 * global `fetch` loads undici's HTTP client and compiles its WebAssembly HTTP parser: about
 * 12 MiB of resident memory for good, where nothing else uses `fetch` ("Idle memory"). And a
 * model's stream read through undici's body costs about 12 µs more a network read than
 * `node:http` ("Real model speeds"): {@link takeNodeBody} lets a reader of such a stream read
 * the socket's text directly.
 *
 * It does what the SDKs ask of `fetch` and answers as `fetch` does: the same `Response` class,
 * rejections as `TypeError("fetch failed")` with the cause, a body that fails with
 * `TypeError("terminated")` when the connection drops, an abort that rejects with the signal's
 * reason, a kept-alive connection the server closed left unused (what undici notices by itself,
 * reading every idle connection) and an idempotent request sent again when one still turns out
 * closed (never a POST: the server may have read it), the headers `fetch` adds (`user-agent: node`, `accept: *\/*`, a string body's
 * `content-type`), a gzip, deflate or Brotli body decoded, and undici's idle timeouts. A
 * redirect comes back as it is with `redirect: "manual"` (the MCP SDK follows it itself);
 * otherwise the request is handed to the global `fetch`, which follows it (the server answered
 * with a redirect, so it did not act on the request). Anything else they might ask (a `Request`,
 * a form or stream body, another protocol) goes to the global `fetch` too.
 */
export const nodeHttpFetch: FetchLike = (input, init = {}) => send(input, init, undefined);

/**
 * {@link nodeHttpFetch} for the model SDKs: a stream of server-sent events is read in bursts
 * after its first few chunks ({@link modelStreamPacer}), and each read hands on all that came as
 * one chunk (docs/performance.md, "Reading a model's stream in bursts").
 */
export const modelStreamFetch: FetchLike = (input, init = {}) => send(input, init, modelStreamPacer);

function send(input: string | URL | Request, init: RequestInit, pacer: ReadPacer | undefined): Promise<Response> {
  const url = typeof input === "string" ? parseUrl(input) : input instanceof URL ? input : undefined;
  const body = init.body;
  if (
    url === undefined ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
  ) {
    return fetch(input, init);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = requestHeaders(init.headers, body);
  const https = url.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  const pool = https ? pools.https : pools.http;
  const manual = init.redirect === "manual";
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
      const request = send(url, { method, headers, agent: again ? pool : false });
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
        const status = message.statusCode ?? 0;
        if (!manual && redirectStatuses.has(status) && message.headers.location !== undefined) {
          message.resume();
          release();
          resolve(fetch(input, init));
          return;
        }
        try {
          resolve(toResponse(message, method === "HEAD", signal, release, pacer));
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
}

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
  pacer: ReadPacer | undefined,
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
  // Only a stream of events trickles in; any other body is read as it comes.
  const events = message.headers["content-type"]?.toLowerCase().startsWith("text/event-stream") === true;
  const body = new NodeBody(message, decoded(message), signal, release, events ? pacer : undefined);
  const response = new Response(body.webStream(), init);
  nodeBodies.set(response, body);
  return response;
}

/** The body as sent, or decoded as `fetch` decodes it (`content-encoding`: gzip, deflate, br). */
function decoded(message: IncomingMessage): Readable {
  const coding = message.headers["content-encoding"]?.trim().toLowerCase();
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return message;
  message.on("error", (error) => decoder.destroy(error));
  message.on("close", () => {
    if (!message.complete) decoder.destroy(new Error("the connection closed before the body ended"));
  });
  return message.pipe(decoder);
}

/** Paced, the first events of a body are read as they come (a model's first words, a short body). */
const unpacedEvents = 8;

/** The bodies of this fetch's responses not yet read, by their response. */
const nodeBodies = new WeakMap<Response, NodeBody>();

/**
 * The body of `response`, one of this fetch's, as the socket's text chunk by chunk, when
 * nothing has read it yet (its web stream is then never used); else undefined. A reader of a
 * long stream of small events (a model's answer, a token a read) spares undici's web stream
 * and its promises per read that way. A body of {@link modelStreamFetch} is read in bursts.
 */
export function takeNodeBody(response: Response): TextChunks | undefined {
  const body = nodeBodies.get(response);
  if (!body) return undefined;
  nodeBodies.delete(response);
  return body.take();
}

/** A body's text as it arrives: the next chunk, or undefined once it has ended. */
export interface TextChunks {
  read(): Promise<string | undefined>;
  /** Stops reading: what is left is dropped (a body not read to its end). */
  cancel(): void;
}

/**
 * A response's body, read either as a web stream (`response.body`, what the SDKs read) or
 * through {@link takeNodeBody}, whichever comes first; the other then fails. Both read the same
 * queue of the socket's chunks, which reads from the socket only as fast as it is read.
 */
class NodeBody implements TextChunks {
  private state: "idle" | "web" | "taken" | "over" = "idle";
  /** Bytes for the web stream, text for the other reader (decoded as it comes: one promise a read). */
  private readonly chunks: (Buffer | string)[] = [];
  private ended = false;
  private failure: unknown;
  private waiting:
    | { resolve: (chunk: Buffer | string | undefined) => void; reject: (error: unknown) => void }
    | undefined;
  private readonly text = new StringDecoder("utf8");
  private dataEvents = 0;
  private handing = false;

  constructor(
    private readonly message: IncomingMessage,
    private readonly source: Readable,
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
    private readonly pacer: ReadPacer | undefined,
  ) {}

  /** The web stream: it starts reading at its first read (a high-water mark of 0). */
  webStream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (this.state === "idle") this.start("web");
          else if (this.state !== "web") throw new TypeError("the body was read another way");
          const chunk = await this.next();
          if (chunk === undefined) controller.close();
          else controller.enqueue(chunk as Buffer);
        },
        cancel: () => this.close(),
      },
      { highWaterMark: 0 },
    );
  }

  /** The body as text chunks, or undefined when its web stream has started. */
  take(): TextChunks | undefined {
    if (this.state !== "idle") return undefined;
    this.start("taken");
    return this;
  }

  read(): Promise<string | undefined> {
    if (this.state !== "taken") return Promise.resolve(undefined);
    return this.next() as Promise<string | undefined>;
  }

  /**
   * What is left is read and dropped (a stream's end after its last event), so that its
   * connection goes back to the pool; a body that goes on for another second is cut.
   */
  cancel(): void {
    if (this.state === "over") return;
    this.state = "over";
    this.chunks.length = 0;
    this.release();
    // Drained at full speed: the connection goes back to its pool as soon as it can.
    const { socket } = this.message;
    if (this.pacer && socket) this.pacer.letGo(socket);
    const { source } = this;
    if (source.readableEnded || source.destroyed) return;
    const cut = setTimeout(() => this.close(), drainMs);
    cut.unref();
    source.once("end", () => clearTimeout(cut));
    source.once("close", () => clearTimeout(cut));
    source.resume();
  }

  /** Starts reading the socket into the queue, for one reader. */
  private start(reader: "web" | "taken"): void {
    this.state = reader;
    const { source, message, pacer } = this;
    const { socket } = message;
    // Its body over, the connection goes back to its pool reading (a close must be seen there).
    if (pacer && socket) message.once("end", () => pacer.letGo(socket));
    source.on("data", (bytes: Buffer) => {
      if (this.state === "over") return;
      // A chunk that ends inside a character gives only what is whole (possibly nothing yet).
      const chunk = this.state === "taken" ? this.text.write(bytes) : bytes;
      // Paced past its first chunks: the socket waits, and what the read brought is handed on as one.
      const paced = this.pacer !== undefined && ++this.dataEvents > unpacedEvents;
      if (paced && message.socket) this.pacer?.hold(message.socket);
      if (chunk.length === 0) return;
      const waiting = this.waiting;
      if (waiting && !paced) {
        this.waiting = undefined;
        waiting.resolve(chunk);
        return;
      }
      this.chunks.push(chunk);
      if (waiting && !this.handing) {
        this.handing = true;
        setImmediate(() => this.handOn());
      }
      // A reader that lags: the socket waits for it (TCP's flow control) instead of memory.
      if (this.chunks.length >= 16) source.pause();
    });
    source.on("end", () => this.end(undefined));
    source.on("error", (error) => this.end(error));
    source.on("close", () => this.end(new Error("the connection closed before the body ended")));
    if (source !== message) message.on("error", (error) => this.end(error));
  }

  /**
   * Paced, what a read brought is handed on once the event loop has read all of it (TLS gives
   * each record a call of its own, and the reader would wake for each).
   */
  private handOn(): void {
    this.handing = false;
    const waiting = this.waiting;
    if (!waiting || this.chunks.length === 0) return;
    this.waiting = undefined;
    this.next().then(waiting.resolve, waiting.reject);
  }

  /** The next chunk as it came, or undefined at the end; what is queued is read first. */
  private next(): Promise<Buffer | string | undefined> {
    // What came in one read (or while the reader was busy) is read as one chunk: one wake-up.
    const chunk = this.chunks.length > 1 ? this.joined() : this.chunks.shift();
    if (chunk !== undefined) {
      if (this.chunks.length === 0 && !this.ended) this.source.resume();
      return Promise.resolve(chunk);
    }
    if (this.ended) return this.failure === undefined ? Promise.resolve(undefined) : Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The queue as one chunk, emptied. */
  private joined(): Buffer | string {
    const chunks = this.chunks.splice(0);
    return this.state === "taken" ? chunks.join("") : Buffer.concat(chunks as Buffer[]);
  }

  /** The body ended (`error` undefined) or failed, as `fetch` says: `terminated`, or the abort's reason. */
  private end(error: unknown): void {
    if (this.ended) return;
    if (error === undefined && this.state === "taken") {
      const rest = this.text.end();
      if (rest !== "") this.chunks.push(rest);
    }
    this.ended = true;
    this.release();
    if (error !== undefined) {
      this.failure = this.signal?.aborted ? this.signal.reason : new TypeError("terminated", { cause: error });
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    // A reader waits only on an empty queue: what it may hold now is the text's last character.
    const last = this.chunks.shift();
    if (last !== undefined) waiting.resolve(last);
    else if (this.failure === undefined) waiting.resolve(undefined);
    else waiting.reject(this.failure);
  }

  private close(): void {
    this.state = "over";
    this.release();
    this.message.destroy();
    if (this.source !== this.message) this.source.destroy();
  }
}
