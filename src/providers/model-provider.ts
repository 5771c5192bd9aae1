import type { ProviderErrorCode } from "../errors/roundtable-error.js";

/**
 * The model port: a request view in, a stream of typed parts out, ending in one LLMResponse.
 * Providers are pure clients: they never run tools, never touch storage or events.
 */

/** A tool as a model sees it. `inputSchema` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tool call as a model made it. `argumentsJson` is the raw text the model produced. */
export interface ModelToolCall {
  /** The provider's call id (generated when the provider has none, e.g. Google). */
  id: string;
  name: string;
  argumentsJson: string;
  /** Provider-specific fields kept raw (e.g. Gemini `thoughtSignature`), round-tripped. */
  providerFields?: Record<string, unknown>;
}

/** Where a piece of history came from, so a view can mask what another provider made. */
export interface Origin {
  provider: string;
  model: string;
}

/** An image a person sent, for models that take image input (PNG, JPEG, GIF, WebP). */
export interface ViewImage {
  mediaType: string;
  /** The bytes, base64-encoded. */
  base64: string;
}

/** A PDF a person sent, for providers that take document input (Anthropic, Gemini, OpenAI). */
export interface ViewDocument {
  /** The file's name (OpenAI sends it with the bytes). */
  name: string;
  mediaType: "application/pdf";
  /** The bytes, base64-encoded. */
  base64: string;
  /** Its pages as counted from its bytes (at least 1): what the view's budget counts. */
  pages: number;
}

/** One message of a request view, in neutral form. */
export type ViewMessage =
  | { role: "user"; text: string; images?: ViewImage[]; documents?: ViewDocument[] }
  | {
      role: "assistant";
      text: string;
      toolCalls: ModelToolCall[];
      origin?: Origin;
      /** Provider-specific fields of the whole response (e.g. Anthropic thinking blocks). */
      providerFields?: Record<string, unknown>;
    }
  | {
      role: "tool";
      toolCallId: string;
      toolName: string;
      text: string;
      origin?: Origin;
      /**
       * Images the call gave (an MCP `image` content, an image it left in `outbox/`), for models
       * that take image input: each provider sends them with the result in its own shape.
       */
      images?: ViewImage[];
    };

/** What one provider call gets. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: ViewMessage[];
  tools: ToolDefinition[];
  temperature?: number;
  maxOutputTokens?: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "error" | "other";

/** The one result of a provider call. */
export interface LLMResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: Usage;
  finishReason: FinishReason;
  providerFields?: Record<string, unknown>;
}

/**
 * What a provider stream yields; the last part is always `finish`. `restart` (from the retry
 * layer only) says the call broke off after some output and was sent again from the start:
 * every part before it is void, and the request was paid for once more.
 */
export type StreamPart =
  | { type: "text-delta"; text: string }
  | { type: "tool-call"; call: ModelToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "restart"; code: ProviderErrorCode }
  | { type: "finish"; response: LLMResponse };

/**
 * One provider (OpenAI, Anthropic, Google, or a fake). Errors are thrown as `ProviderError`
 * with a stable code; a stream cut in the middle is an error, never a short answer.
 */
export interface ModelProvider {
  readonly name: string;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart>;
}
