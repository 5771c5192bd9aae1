/**
 * A fake Anthropic Messages API (`POST /v1/messages`, SSE with named events): `message_start`,
 * `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta` split across
 * events) / `content_block_stop`, `message_delta` with `stop_reason` and usage, `message_stop`.
 * Accepts the key as `x-api-key` or `Authorization: Bearer`.
 */
import type { IncomingHttpHeaders } from "node:http";
import {
  type ErrorAnswer,
  type FakeError,
  type FakeModelServer,
  type FakeReply,
  type FakeServerOptions,
  finishOf,
  type RecordedRequest,
  sseFrame,
  startFakeModelServer,
  type WireProtocol,
} from "./model-fake-server.js";

export type { FakeModelServer, FakeStep } from "./model-fake-server.js";

const stopReasons = { stop: "end_turn", "tool-calls": "tool_use", length: "max_tokens", "content-filter": "refusal" };

function event(type: string, data: Record<string, unknown>): string {
  return sseFrame({ type, ...data }, type);
}

function start(request: RecordedRequest, usage: FakeReply["usage"]): string {
  const model = (request.body as { model?: string } | undefined)?.model ?? "fake";
  const cached = usage?.cachedInputTokens ?? 0;
  return event("message_start", {
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: (usage?.inputTokens ?? 0) - cached,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
        output_tokens: 1,
      },
    },
  });
}

function textBlock(index: number, text: string[]): string[] {
  return [
    event("content_block_start", { index, content_block: { type: "text", text: "", citations: null } }),
    ...text.map((piece) => event("content_block_delta", { index, delta: { type: "text_delta", text: piece } })),
    event("content_block_stop", { index }),
  ];
}

const errorBodies: Record<FakeError["kind"], { status: number; type: string; message: string }> = {
  "rate-limited": {
    status: 429,
    type: "rate_limit_error",
    message: "Number of request tokens has exceeded your per-minute rate limit",
  },
  auth: { status: 401, type: "authentication_error", message: "invalid x-api-key" },
  forbidden: {
    status: 403,
    type: "permission_error",
    message: "Your API key does not have permission to use the specified resource.",
  },
  "context-too-long": {
    status: 400,
    type: "invalid_request_error",
    message: "prompt is too long: 208310 tokens > 200000 maximum",
  },
  server: { status: 500, type: "api_error", message: "Internal server error" },
  overloaded: { status: 529, type: "overloaded_error", message: "Overloaded" },
  "bad-request": { status: 404, type: "not_found_error", message: "model: claude-nonexistent" },
  "invalid-request": { status: 400, type: "invalid_request_error", message: "temperature: range: 0..1" },
};

export const anthropicProtocol: WireProtocol = {
  isModelCall: (method, url) => method === "POST" && url.split("?")[0] === "/v1/messages",
  keyOf: (headers: IncomingHttpHeaders) => {
    const key = headers["x-api-key"];
    if (typeof key === "string") return key;
    return headers.authorization?.replace(/^Bearer /, "");
  },
  reply(step: FakeReply, request: RecordedRequest): string[] {
    const frames = [start(request, step.usage), sseFrame({ type: "ping" }, "ping")];
    let index = 0;
    if ((step.text ?? []).length > 0) frames.push(...textBlock(index++, step.text ?? []));
    for (const [position, call] of (step.toolCalls ?? []).entries()) {
      const at = index++;
      frames.push(
        event("content_block_start", {
          index: at,
          content_block: { type: "tool_use", id: call.id ?? `toolu_fake_${position}`, name: call.name, input: {} },
        }),
        ...call.argumentChunks.map((piece) =>
          event("content_block_delta", { index: at, delta: { type: "input_json_delta", partial_json: piece } }),
        ),
        event("content_block_stop", { index: at }),
      );
    }
    frames.push(
      event("message_delta", {
        delta: { stop_reason: stopReasons[finishOf(step)], stop_sequence: null },
        usage: { output_tokens: step.usage?.outputTokens ?? 0 },
      }),
      event("message_stop", {}),
    );
    return frames;
  },
  partial: (text, request, toolCall) => [
    start(request, undefined),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ...text.map((piece) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } })),
    ...(toolCall === undefined
      ? []
      : [
          event("content_block_stop", { index: 0 }),
          event("content_block_start", {
            index: 1,
            content_block: { type: "tool_use", id: toolCall.id ?? "toolu_fake_0", name: toolCall.name, input: {} },
          }),
          event("content_block_delta", {
            index: 1,
            delta: { type: "input_json_delta", partial_json: toolCall.argumentChunks[0] ?? "" },
          }),
        ]),
  ],
  malformed: () =>
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta",\n\n',
  /** Anthropic's `event: error`, typed as its HTTP answer would be. */
  streamError: (kind) => {
    const body = errorBodies[kind];
    return sseFrame({ type: "error", error: { type: body.type, message: body.message } }, "error");
  },
  error(step: FakeError): ErrorAnswer {
    const body = errorBodies[step.kind];
    return {
      status: body.status,
      headers: {
        "request-id": "req_fake",
        ...(step.retryAfter === undefined ? {} : { "retry-after": step.retryAfter }),
        ...(step.retryAfterMs === undefined ? {} : { "retry-after-ms": step.retryAfterMs }),
      },
      body: { type: "error", error: { type: body.type, message: body.message } },
    };
  },
};

/** Starts the fake; point the SDK's `baseURL` at `baseUrl` (the bare origin). */
export function startAnthropicFake(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  return startFakeModelServer(anthropicProtocol, "", options);
}
