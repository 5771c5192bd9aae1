import { APIError } from "openai";
import type { ProviderError } from "../../errors/roundtable-error.js";
import {
  isAbortLike,
  providerErrorFromFailure,
  providerErrorFromStatus,
  retryAfterFromHeaders,
} from "../provider-error-map.js";

/**
 * Whatever the openai SDK threw, as a ProviderError; `model` is the one the request named. An
 * error inside the stream is read by its `type`/`code` as an HTTP answer is by its status.
 */
export function mapOpenAIError(
  error: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  model?: string,
): ProviderError {
  const named = model === undefined ? {} : { model };
  if (error instanceof APIError && error.status !== undefined && !isAbortLike(error)) {
    const body = (error.error ?? {}) as { message?: unknown };
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    return providerErrorFromStatus({
      provider,
      status: error.status,
      kinds: [error.type, error.code].filter((kind): kind is string => typeof kind === "string"),
      apiMessage: typeof body.message === "string" ? body.message : error.message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...named,
      cause: error,
    });
  }
  if (error instanceof APIError && error.constructor === APIError && error.error !== undefined) {
    // An `{ "error": … }` object inside an open stream (OpenRouter, LiteLLM, vLLM do this), or
    // the Responses API's `error` event; `code` is a string, or some servers' HTTP status.
    const body = error.error as { message?: unknown; code?: unknown; type?: unknown };
    const status = typeof body.code === "number" ? body.code : undefined;
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    return providerErrorFromStatus({
      provider,
      status,
      kinds: [body.type, body.code].filter((kind): kind is string => typeof kind === "string" && kind !== "error"),
      apiMessage: typeof body.message === "string" ? body.message : error.message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...named,
      cause: error,
    });
  }
  return providerErrorFromFailure(provider, error, signal);
}
