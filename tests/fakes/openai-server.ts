/**
 * A fake OpenAI server, also standing in for OpenAI-compatible servers.
 * Chat Completions (`POST /v1/chat/completions`, SSE): tool calls stream as
 * `delta.tool_calls[{ index, id, function }]` pieces, arguments split across chunks; usage
 * comes in a last chunk with `choices: []` when the request asked for it; `data: [DONE]` ends.
 * Responses API (`POST /v1/responses`, SSE with typed events): `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.output_item.done`, then `response.completed` (or `response.incomplete`) with usage.
 */
import type { IncomingHttpHeaders } from "node:http";
import {
  type ErrorAnswer,
  type FakeError,
  type FakeModelServer,
  type FakeReply,
  type FakeServerOptions,
  type FakeToolCall,
  finishOf,
  type RecordedRequest,
  sseFrame,
  startFakeModelServer,
  type WireProtocol,
} from "./model-fake-server.js";

export type { FakeModelServer, FakeStep } from "./model-fake-server.js";

const finishReasons = {
  stop: "stop",
  "tool-calls": "tool_calls",
  length: "length",
  "content-filter": "content_filter",
};

function chunk(request: RecordedRequest, choices: unknown[], extra: Record<string, unknown> = {}) {
  const model = (request.body as { model?: string } | undefined)?.model ?? "fake";
  return sseFrame({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices,
    ...extra,
  });
}

function textChunks(request: RecordedRequest, text: string[]): string[] {
  return [
    chunk(request, [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...text.map((piece) => chunk(request, [{ index: 0, delta: { content: piece }, finish_reason: null }])),
  ];
}

/** The first piece of a tool call (id, name and the first arguments piece), as Chat Completions streams it. */
function firstCallChunk(request: RecordedRequest, call: FakeToolCall, index: number): string {
  return chunk(request, [
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index,
            id: call.id ?? `call_fake_${index}`,
            type: "function",
            function: { name: call.name, arguments: call.argumentChunks[0] ?? "" },
            ...call.extra,
          },
        ],
      },
      finish_reason: null,
    },
  ]);
}

const errorBodies: Record<FakeError["kind"], { status: number; type: string; code: string | null; message: string }> = {
  "rate-limited": {
    status: 429,
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for gpt-4.1 on requests per min (RPM): Limit 3, Used 3.",
  },
  auth: {
    status: 401,
    type: "invalid_request_error",
    code: "invalid_api_key",
    message:
      "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
  "context-too-long": {
    status: 400,
    type: "invalid_request_error",
    code: "context_length_exceeded",
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens.",
  },
  server: {
    status: 500,
    type: "server_error",
    code: null,
    message: "The server had an error while processing your request.",
  },
  overloaded: { status: 503, type: "server_error", code: null, message: "The engine is currently overloaded." },
  forbidden: {
    status: 403,
    type: "invalid_request_error",
    code: null,
    message: "You are not allowed to sample from this model",
  },
  "bad-request": {
    status: 404,
    type: "invalid_request_error",
    code: "model_not_found",
    message: "The model `gpt-nonexistent` does not exist or you do not have access to it.",
  },
  "invalid-request": {
    status: 400,
    type: "invalid_request_error",
    code: "unsupported_value",
    message:
      "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
  },
};

/**
 * An error inside an open stream: Chat Completions as OpenAI-compatible servers write it
 * (`data: {"error": {message, type, code}}`, code the API's string or, where it has none, the
 * HTTP status); the Responses API as an `error` event.
 */
function streamErrorFrame(kind: FakeError["kind"], request: RecordedRequest): string {
  const body = errorBodies[kind];
  if (isResponses(request)) {
    // The event's code is always a string; where the HTTP answer has none, the status's meaning.
    const code = body.code ?? (body.status === 403 ? "permission_denied" : body.type);
    return sseFrame({ type: "error", code, message: body.message, param: null }, "error");
  }
  const code = body.code ?? body.status;
  return sseFrame({ error: { message: body.message, type: body.type, code } });
}

const isResponses = (request: RecordedRequest) => request.url.split("?")[0] === "/v1/responses";

/** What the fake transcribes a file to: set by a test (default names the file). */
export const fakeTranscripts = new Map<string, string>();

/**
 * `POST /v1/audio/transcriptions`, as OpenAI takes it: multipart with `file` (a file part) and
 * `model`; answers `{ text }` (the default `response_format: json`), or 400 as OpenAI does when
 * a part is missing. The transcript is `fakeTranscripts.get(<file name>)`, else `.get("*")`, else `transcript of <name>`.
 */
async function transcription(request: { method: string; url: string; headers: IncomingHttpHeaders; bytes: Buffer }) {
  if (request.method !== "POST" || request.url.split("?")[0] !== "/v1/audio/transcriptions") return undefined;
  const contentType = String(request.headers["content-type"] ?? "");
  const invalid = (message: string, param: string) => ({
    answer: { status: 400, body: { error: { message, type: "invalid_request_error", param, code: null } } },
    body: { invalid: message },
  });
  if (!contentType.startsWith("multipart/form-data")) return invalid("Expected multipart/form-data", "file");
  const form = await new Response(new Uint8Array(request.bytes), {
    headers: { "content-type": contentType },
  }).formData();
  const file = form.get("file");
  const model = form.get("model");
  if (file === null || typeof file === "string") return invalid("you must provide a file", "file");
  if (typeof model !== "string" || model === "") return invalid("you must provide a model parameter", "model");
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = fakeTranscripts.get(file.name) ?? fakeTranscripts.get("*") ?? `transcript of ${file.name}`;
  return {
    // Token-billed models (gpt-4o-transcribe, gpt-4o-mini-transcribe) report usage, as OpenAI's do; whisper-1 none.
    answer: {
      status: 200,
      body: model.startsWith("gpt-4o")
        ? { text, usage: { type: "tokens", input_tokens: 14, output_tokens: 7, total_tokens: 21 } }
        : { text },
    },
    body: { model, fileName: file.name, fileType: file.type, size: bytes.length, bytes },
  };
}

export const openAIProtocol: WireProtocol = {
  other: transcription,
  isModelCall: (method, url) =>
    method === "POST" && ["/v1/chat/completions", "/v1/responses"].includes(url.split("?")[0] ?? ""),
  keyOf: (headers: IncomingHttpHeaders) => headers.authorization?.replace(/^Bearer /, ""),
  reply(step: FakeReply, request: RecordedRequest): string[] {
    if (isResponses(request)) return responsesReply(step);
    const frames = textChunks(request, step.text ?? []);
    for (const [index, call] of (step.toolCalls ?? []).entries()) {
      frames.push(firstCallChunk(request, call, index));
      for (const piece of call.argumentChunks.slice(1)) {
        frames.push(
          chunk(request, [
            { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
          ]),
        );
      }
    }
    frames.push(chunk(request, [{ index: 0, delta: {}, finish_reason: finishReasons[finishOf(step)] }]));
    const wantsUsage = (request.body as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage;
    if (step.usage && wantsUsage) {
      frames.push(
        chunk(request, [], {
          usage: {
            prompt_tokens: step.usage.inputTokens,
            completion_tokens: step.usage.outputTokens,
            total_tokens: step.usage.inputTokens + step.usage.outputTokens,
            prompt_tokens_details: { cached_tokens: step.usage.cachedInputTokens ?? 0 },
          },
        }),
      );
    }
    frames.push(sseFrame("[DONE]"));
    return frames;
  },
  partial(text, request, toolCall) {
    if (isResponses(request)) return responsesStart(text, toolCall);
    return [...textChunks(request, text), ...(toolCall ? [firstCallChunk(request, toolCall, 0)] : [])];
  },
  malformed: () => 'data: {"id":"chatcmpl-fake","choices":[{"index":0,"delta":{"content":"oops"\n\n',
  streamError: streamErrorFrame,
  error(step: FakeError): ErrorAnswer {
    const body = errorBodies[step.kind];
    const headers = {
      ...(step.retryAfter === undefined ? {} : { "retry-after": step.retryAfter }),
      ...(step.retryAfterMs === undefined ? {} : { "retry-after-ms": step.retryAfterMs }),
    };
    return {
      status: body.status,
      headers,
      body: { error: { message: body.message, type: body.type, param: null, code: body.code } },
    };
  },
};

/** Responses API events, each with its `sequence_number`. */
function responsesEvents(events: Record<string, unknown>[]): string[] {
  return events.map((event, sequence) => sseFrame({ ...event, sequence_number: sequence }, event.type as string));
}

function responsesStartEvents(text: string[]): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: { id: "resp_fake", object: "response", status: "in_progress", output: [] } },
  ];
  if (text.length === 0) return events;
  events.push(
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id: "msg_fake", role: "assistant", status: "in_progress", content: [] },
    },
    ...text.map((delta) => ({
      type: "response.output_text.delta",
      item_id: "msg_fake",
      output_index: 0,
      content_index: 0,
      delta,
    })),
  );
  return events;
}

function responsesStart(text: string[], toolCall?: FakeToolCall): string[] {
  const events = responsesStartEvents(text);
  if (toolCall) {
    const id = "fc_fake_cut";
    const outputIndex = text.length === 0 ? 0 : 1;
    events.push(
      {
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { type: "function_call", id, call_id: toolCall.id ?? "call_fake_0", name: toolCall.name, arguments: "" },
      },
      {
        type: "response.function_call_arguments.delta",
        item_id: id,
        output_index: outputIndex,
        delta: toolCall.argumentChunks[0] ?? "",
      },
    );
  }
  return responsesEvents(events);
}

function responsesReply(step: FakeReply): string[] {
  const text = step.text ?? [];
  const events = responsesStartEvents([]);
  const output: Record<string, unknown>[] = [];
  const add = (item: Record<string, unknown>, during: Record<string, unknown>[]) => {
    const index = output.length;
    events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress" } });
    events.push(...during.map((event) => ({ ...event, output_index: index })));
    events.push({ type: "response.output_item.done", output_index: index, item: { ...item, status: "completed" } });
    output.push(item);
  };
  if (step.reasoning) {
    add(
      { type: "reasoning", id: step.reasoning.id, summary: [], encrypted_content: step.reasoning.encryptedContent },
      [],
    );
  }
  if (text.length > 0) {
    add(
      {
        type: "message",
        id: "msg_fake",
        role: "assistant",
        content: [{ type: "output_text", text: text.join(""), annotations: [] }],
      },
      text.map((delta) => ({ type: "response.output_text.delta", item_id: "msg_fake", content_index: 0, delta })),
    );
  }
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const item = {
      type: "function_call",
      id: `fc_fake_${index}`,
      call_id: call.id ?? `call_fake_${index}`,
      name: call.name,
      arguments: call.argumentChunks.join(""),
    };
    add(
      item,
      call.argumentChunks.map((delta) => ({ type: "response.function_call_arguments.delta", item_id: item.id, delta })),
    );
  }
  const finish = finishOf(step);
  const usage = {
    input_tokens: step.usage?.inputTokens ?? 0,
    output_tokens: step.usage?.outputTokens ?? 0,
    total_tokens: (step.usage?.inputTokens ?? 0) + (step.usage?.outputTokens ?? 0),
    input_tokens_details: { cached_tokens: step.usage?.cachedInputTokens ?? 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  const incomplete =
    finish === "length" ? "max_output_tokens" : finish === "content-filter" ? "content_filter" : undefined;
  events.push({
    type: incomplete === undefined ? "response.completed" : "response.incomplete",
    response: {
      id: "resp_fake",
      object: "response",
      status: incomplete === undefined ? "completed" : "incomplete",
      incomplete_details: incomplete === undefined ? null : { reason: incomplete },
      output,
      usage,
    },
  });
  return responsesEvents(events);
}

/** Starts the fake; point the SDK's `baseURL` at `baseUrl` (it ends in `/v1`). */
export function startOpenAIFake(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  return startFakeModelServer(openAIProtocol, "/v1", options);
}
