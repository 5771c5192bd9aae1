/**
 * The common part of the three model API fakes (OpenAI, Anthropic, Gemini): an HTTP server on
 * 127.0.0.1 with a script of steps (one per model call), recording every request. Each fake
 * supplies a {@link WireProtocol} that encodes a step in its provider's real SSE format.
 *
 * Faults, for tests and the chaos harness (docs/model-errors.md):
 * - a scripted step can be an HTTP error of any {@link FakeErrorKind} (`retryAfter` seconds,
 *   `retryAfterMs` as `retry-after-ms`; Gemini carries a 429's delay as `RetryInfo`), an error
 *   inside an open stream (`stream-error` with a kind), a connection reset (`cut`, before the
 *   headers or after some text and half a tool call) or a stream that ends cleanly without its
 *   end marker (`truncated`);
 * - `fault` (an option) is asked before every model call and may put a fault in place of the
 *   step: the scripted (or `respond`) step then stays for the next call, so a fault never eats
 *   an answer; `cut-reply` plays the first frames of that very step and resets the connection,
 *   a stream cut half-way through the answer the model would give.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FakeUsage {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

export interface FakeToolCall {
  /** Omit for a provider that gives none (Gemini). */
  id?: string;
  name: string;
  /** The arguments JSON text, in the pieces the stream carries (joined they must be JSON). */
  argumentChunks: string[];
  /** Extra raw fields on the call (OpenAI `extra_content`, Gemini `thoughtSignature`). */
  extra?: Record<string, unknown>;
}

export type FakeFinish = "stop" | "tool-calls" | "length" | "content-filter";

/**
 * What an error says, in each provider's own words: `auth` a wrong key (401, Gemini's 400
 * `API_KEY_INVALID`), `forbidden` a key without access (403), `bad-request` an unknown model
 * (404), `invalid-request` a bad parameter (400), `overloaded` 503 (Anthropic 529).
 */
export type FakeErrorKind =
  | "rate-limited"
  | "auth"
  | "forbidden"
  | "context-too-long"
  | "server"
  | "overloaded"
  | "bad-request"
  | "invalid-request";

export interface FakeReply {
  type: "reply";
  text?: string[];
  toolCalls?: FakeToolCall[];
  usage?: FakeUsage;
  /** Defaults to `tool-calls` when there are tool calls, else `stop`. */
  finish?: FakeFinish;
  /** OpenAI Responses API only: an encrypted reasoning item before the output. */
  reasoning?: { id: string; encryptedContent: string };
  /** Pause between frames, so a browser test can watch the answer being written. */
  frameDelayMs?: number;
  /** Pause after the headers before the first frame (a model's time to its first token). */
  firstFrameDelayMs?: number;
  /** A slow model: the first `frames` frames are written, the rest only once `until` resolves. */
  hold?: { frames: number; until: Promise<void> };
}

export interface FakeError {
  type: "error";
  kind: FakeErrorKind;
  /** A `Retry-After` header value (seconds). */
  retryAfter?: string;
  /** A `retry-after-ms` header value (OpenAI's, milliseconds). */
  retryAfterMs?: string;
}

export type FakeStep =
  | FakeReply
  | FakeError
  /** Streams the text, then a data line that is not JSON. */
  | { type: "malformed"; text?: string[] }
  /**
   * Streams the text (and half of `toolCall`), then destroys the connection (before the
   * headers when `beforeHeaders`).
   */
  | { type: "cut"; text?: string[]; toolCall?: FakeToolCall; beforeHeaders?: boolean }
  /** Streams the text (and half of `toolCall`), then ends the response cleanly without the end marker. */
  | { type: "truncated"; text?: string[]; toolCall?: FakeToolCall }
  /** Streams the text, then an error event of `kind` (default `overloaded`) inside the open stream. */
  | { type: "stream-error"; text?: string[]; kind?: FakeErrorKind }
  /** Streams the text, then stays open until the client goes away. */
  | { type: "hang"; text?: string[] }
  /** Never answers at all, not even the headers (for client timeouts). */
  | { type: "stall" };

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ErrorAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** How one provider's wire protocol writes each kind of step. */
export interface WireProtocol {
  /** Whether the request is a streaming model call this fake answers. */
  isModelCall(method: string, url: string): boolean;
  /** The key the client sent, if any (to check against the configured one). */
  keyOf(headers: IncomingHttpHeaders): string | undefined;
  /** SSE frames (`event:`/`data:` lines ending in a blank line) for a whole reply. */
  reply(step: FakeReply, request: RecordedRequest): string[];
  /**
   * SSE frames that start a reply and carry only this text, then half of `toolCall` (its first
   * argument piece; Gemini, whose calls come whole, the whole call), with no end marker.
   */
  partial(text: string[], request: RecordedRequest, toolCall?: FakeToolCall): string[];
  /** One SSE frame whose data is not valid JSON. */
  malformed(): string;
  /** One SSE frame carrying an error of this kind inside the stream, as the provider writes it. */
  streamError(kind: FakeErrorKind, request: RecordedRequest): string;
  /** The HTTP error answer for a kind (realistic body, `retry-after` when asked). */
  error(step: FakeError): ErrorAnswer;
  /**
   * A call that is not a streaming model call but that the API has (OpenAI's
   * `/audio/transcriptions`): its whole answer, recorded in `requests` as `body`; undefined
   * when the fake does not know it (404).
   */
  other?(request: {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    bytes: Buffer;
  }): Promise<{ answer: ErrorAnswer; body: unknown } | undefined>;
}

export interface FakeModelServer {
  /** What the SDK is configured with (its base URL convention). */
  readonly baseUrl: string;
  readonly origin: string;
  /** Every model call received, in order. */
  readonly requests: RecordedRequest[];
  /** Queue more steps. */
  script(...steps: FakeStep[]): void;
  /** Steps not yet used. */
  readonly pending: number;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /** The key the fake accepts; a different one gets the protocol's 401. */
  apiKey?: string;
  steps?: FakeStep[];
  /** Answers a request when the script is empty (an endless fake model, for the bench). */
  respond?: (request: RecordedRequest) => FakeStep;
  /** False: keep no requests in `requests` (a long bench would hold them all). Default true. */
  record?: boolean;
  /** Called when a model call arrives, with the raw body's length in bytes. */
  onRequest?: (request: RecordedRequest, bodyBytes: number) => void;
  /** Called right after the last frame of a reply was written. */
  onReplyWritten?: (request: RecordedRequest) => void;
  /**
   * Asked before each model call (`call` counts them from 1): a fault to play instead of the
   * step, which then stays for the next call; undefined plays the step.
   */
  fault?: (request: RecordedRequest, call: number) => FakeFault | undefined;
}

/**
 * A fault in place of a step: any step, or `cut-reply`: the first `afterFrames` SSE frames of
 * the step it stands in for (a reply), then the connection reset (`end: "reset"`, the default)
 * or the response ended without its end marker (`end: "clean"`).
 */
export type FakeFault = FakeStep | { type: "cut-reply"; afterFrames: number; end?: "reset" | "clean" };

/**
 * A `fault` option for load and chaos runs: every `every`-th model call (the `every`-th, the
 * `2 × every`-th, …) plays the next of `faults` in turn; the calls between play their answers.
 * E.g. `everyNthCall(6, [{ type: "cut-reply", afterFrames: 2 }, { type: "error", kind:
 * "overloaded", retryAfter: "1" }, { type: "stream-error", kind: "rate-limited" }])`.
 */
export function everyNthCall(every: number, faults: readonly FakeFault[]): NonNullable<FakeServerOptions["fault"]> {
  let played = 0;
  return (_request, call) => {
    if (faults.length === 0 || call % every !== 0) return undefined;
    const fault = faults[played % faults.length];
    played += 1;
    return fault;
  };
}

/** Starts a fake on an ephemeral port of 127.0.0.1. */
export async function startFakeModelServer(
  protocol: WireProtocol,
  basePath: string,
  options: FakeServerOptions = {},
): Promise<FakeModelServer> {
  const steps: FakeStep[] = [...(options.steps ?? [])];
  const requests: RecordedRequest[] = [];
  let modelCalls = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const bytes = Buffer.concat(chunks);
      const method = request.method ?? "GET";
      const url = request.url ?? "/";
      if (!protocol.isModelCall(method, url) && protocol.other !== undefined) {
        const other = await protocol.other({ method, url, headers: request.headers, bytes });
        if (other !== undefined) {
          if (options.record !== false) requests.push({ method, url, headers: request.headers, body: other.body });
          if (options.apiKey !== undefined && protocol.keyOf(request.headers) !== options.apiKey) {
            writeError(response, protocol.error({ type: "error", kind: "auth" }));
            return;
          }
          writeError(response, other.answer);
          return;
        }
      }
      const text = bytes.toString("utf8");
      const recorded: RecordedRequest = {
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: request.headers,
        body: text === "" ? undefined : JSON.parse(text),
      };
      if (!protocol.isModelCall(recorded.method, recorded.url)) {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
        return;
      }
      if (options.record !== false) requests.push(recorded);
      options.onRequest?.(recorded, bytes.length);
      if (options.apiKey !== undefined && protocol.keyOf(request.headers) !== options.apiKey) {
        writeError(response, protocol.error({ type: "error", kind: "auth" }));
        return;
      }
      modelCalls += 1;
      const fault = options.fault?.(recorded, modelCalls);
      if (fault !== undefined && fault.type !== "cut-reply") {
        void play(protocol, fault, recorded, response);
        return;
      }
      const scripted = steps.shift();
      const step = scripted ?? options.respond?.(recorded);
      if (!step) {
        writeError(response, { status: 500, body: { error: { message: "fake: no scripted step left" } } });
        return;
      }
      if (fault !== undefined) {
        // The step stays for the call that comes next (the client's retry).
        if (scripted !== undefined) steps.unshift(scripted);
        void cutReply(protocol, step, fault, recorded, response);
        return;
      }
      void play(protocol, step, recorded, response).then(() => {
        if (step.type === "reply") options.onReplyWritten?.(recorded);
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // A deep accept queue: a bench opens hundreds of connections at once while this process is
  // busy, and past Node's default of 511 the kernel drops them (the client sees ECONNRESET).
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}${basePath}`,
    origin,
    requests,
    script: (...more) => steps.push(...more),
    get pending() {
      return steps.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function play(protocol: WireProtocol, step: FakeStep, request: RecordedRequest, response: ServerResponse) {
  switch (step.type) {
    case "error":
      writeError(response, protocol.error(step));
      return;
    case "cut":
      if (step.beforeHeaders) {
        response.socket?.destroy();
        return;
      }
      await writeFrames(response, protocol.partial(step.text ?? [], request, step.toolCall));
      response.socket?.destroy();
      return;
    case "reply":
      if (step.firstFrameDelayMs !== undefined) await writeFrames(response, [], 0, step.firstFrameDelayMs);
      if (step.hold) {
        const frames = protocol.reply(step, request);
        await writeFrames(response, frames.slice(0, step.hold.frames), step.frameDelayMs);
        await step.hold.until;
        await writeFrames(response, frames.slice(step.hold.frames), step.frameDelayMs);
      } else await writeFrames(response, protocol.reply(step, request), step.frameDelayMs);
      response.end();
      return;
    case "malformed":
      await writeFrames(response, [...protocol.partial(step.text ?? [], request), protocol.malformed()]);
      response.end();
      return;
    case "stream-error":
      await writeFrames(response, [
        ...protocol.partial(step.text ?? [], request),
        protocol.streamError(step.kind ?? "overloaded", request),
      ]);
      response.end();
      return;
    case "truncated":
      await writeFrames(response, protocol.partial(step.text ?? [], request, step.toolCall));
      response.end();
      return;
    case "stall":
      return; // nothing sent; close() destroys the socket
    case "hang":
      await writeFrames(response, protocol.partial(step.text ?? [], request));
      return; // left open; the client aborts, close() destroys what is left
  }
}

/** The first frames of `step` (a reply; any other step is played whole), then the cut. */
async function cutReply(
  protocol: WireProtocol,
  step: FakeStep,
  fault: Extract<FakeFault, { type: "cut-reply" }>,
  request: RecordedRequest,
  response: ServerResponse,
) {
  if (step.type !== "reply") return play(protocol, step, request, response);
  await writeFrames(response, protocol.reply(step, request).slice(0, fault.afterFrames), step.frameDelayMs);
  if (fault.end === "clean") response.end();
  else response.socket?.destroy();
}

function writeError(response: ServerResponse, answer: ErrorAnswer): void {
  response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
  response.end(JSON.stringify(answer.body));
}

/** Writes frames one by one, yielding to the event loop between them so they travel apart. */
async function writeFrames(response: ServerResponse, frames: string[], delayMs = 0, pauseMs = 0): Promise<void> {
  if (!response.headersSent) {
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    response.flushHeaders();
  }
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  for (const frame of frames) {
    if (response.destroyed) return;
    response.write(frame);
    await new Promise((resolve) => (delayMs > 0 ? setTimeout(resolve, delayMs) : setImmediate(resolve)));
  }
}

/** One SSE frame. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}

/** The finish a reply implies. */
export function finishOf(step: FakeReply): FakeFinish {
  return step.finish ?? ((step.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop");
}
