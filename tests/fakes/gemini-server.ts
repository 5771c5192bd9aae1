/**
 * A fake Gemini Developer API (`POST /v1/models/{model}:streamGenerateContent?alt=sse`; `/v1beta/` too).
 * Each SSE `data:` chunk is a `GenerateContentResponse`: text parts, `functionCall` parts (one
 * per chunk, so parallel calls arrive split across chunks, with no ids unless the script
 * gives them), then a last chunk with `finishReason` and cumulative `usageMetadata`. Errors
 * carry Google's `{ error: { code, message, status, details } }` body, `RetryInfo` on 429.
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
  sseFrame,
  startFakeModelServer,
  type WireProtocol,
} from "./model-fake-server.js";

export type { FakeModelServer, FakeStep } from "./model-fake-server.js";

const finishReasons = { stop: "STOP", "tool-calls": "STOP", length: "MAX_TOKENS", "content-filter": "SAFETY" };

function chunk(parts: unknown[], extra: Record<string, unknown> = {}): string {
  return sseFrame({
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: "gemini-fake",
    responseId: "fake-response",
  });
}

const errorBodies: Record<FakeError["kind"], { code: number; status: string; message: string; details?: unknown[] }> = {
  "rate-limited": {
    code: 429,
    status: "RESOURCE_EXHAUSTED",
    message: "You exceeded your current quota, please check your plan and billing details.",
  },
  auth: {
    code: 400,
    status: "INVALID_ARGUMENT",
    message: "API key not valid. Please pass a valid API key.",
    details: [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" },
    ],
  },
  forbidden: { code: 403, status: "PERMISSION_DENIED", message: "The caller does not have permission" },
  "context-too-long": {
    code: 400,
    status: "INVALID_ARGUMENT",
    message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
  },
  server: {
    code: 500,
    status: "INTERNAL",
    message:
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  },
  overloaded: { code: 503, status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  "bad-request": {
    code: 404,
    status: "NOT_FOUND",
    message: "models/gemini-nonexistent is not found for API version v1beta.",
  },
  "invalid-request": {
    code: 400,
    status: "INVALID_ARGUMENT",
    message: "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"",
  },
};

function functionCallPart(call: FakeToolCall): Record<string, unknown> {
  const args: unknown = JSON.parse(call.argumentChunks.join(""));
  return { functionCall: { name: call.name, args, ...(call.id === undefined ? {} : { id: call.id }) }, ...call.extra };
}

export const geminiProtocol: WireProtocol = {
  isModelCall: (method, url) =>
    method === "POST" && /^\/v1(beta)?\/models\/[^/:]+:streamGenerateContent\?alt=sse$/.test(url),
  keyOf: (headers: IncomingHttpHeaders) => {
    const key = headers["x-goog-api-key"];
    return typeof key === "string" ? key : undefined;
  },
  reply(step: FakeReply): string[] {
    const frames = (step.text ?? []).map((piece) => chunk([{ text: piece }]));
    for (const call of step.toolCalls ?? []) frames.push(chunk([functionCallPart(call)]));
    const usage = step.usage;
    frames.push(
      sseFrame({
        candidates: [
          { content: { role: "model", parts: [{ text: "" }] }, finishReason: finishReasons[finishOf(step)], index: 0 },
        ],
        ...(usage === undefined
          ? {}
          : {
              usageMetadata: {
                promptTokenCount: usage.inputTokens,
                candidatesTokenCount: usage.outputTokens,
                cachedContentTokenCount: usage.cachedInputTokens ?? 0,
                totalTokenCount: usage.inputTokens + usage.outputTokens,
              },
            }),
        modelVersion: "gemini-fake",
      }),
    );
    return frames;
  },
  // A call comes whole in one chunk: "half" a call step is the call without the finishing chunk.
  partial: (text, _request, toolCall) => [
    ...text.map((piece) => chunk([{ text: piece }])),
    ...(toolCall === undefined ? [] : [chunk([functionCallPart(toolCall)])]),
  ],
  malformed: () => 'data: {"candidates": [{"content": {"parts": [{"text": "oops"\n\n',
  /** An error object as a chunk of the stream, as Gemini writes it (`{ error: { code, message, status } }`). */
  streamError: (kind) => {
    const body =
      kind === "rate-limited"
        ? {
            ...errorBodies[kind],
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }],
          }
        : errorBodies[kind];
    return sseFrame({
      error: {
        code: body.code,
        message: body.message,
        status: body.status,
        ...(body.details ? { details: body.details } : {}),
      },
    });
  },
  error(step: FakeError): ErrorAnswer {
    const body = errorBodies[step.kind];
    const details =
      step.kind === "rate-limited" && step.retryAfter !== undefined
        ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${step.retryAfter}s` }]
        : body.details;
    return {
      status: body.code,
      headers: {
        ...(step.retryAfter === undefined ? {} : { "retry-after": step.retryAfter }),
        ...(step.retryAfterMs === undefined ? {} : { "retry-after-ms": step.retryAfterMs }),
      },
      body: {
        error: {
          code: body.code,
          message: body.message,
          status: body.status,
          ...(details === undefined ? {} : { details }),
        },
      },
    };
  },
};

/** Starts the fake; point the SDK's `httpOptions.baseUrl` at `baseUrl` (the bare origin). */
export function startGeminiFake(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  return startFakeModelServer(geminiProtocol, "", options);
}
