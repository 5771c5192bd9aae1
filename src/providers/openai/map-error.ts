import { APIError } from "openai";
import type { ProviderError } from "../../errors/roundtable-error.js";
import {
  isAbortLike,
  providerErrorFromFailure,
  providerErrorFromStatus,
  retryAfterFromHeaders,
} from "../provider-error-map.js";

/** Whatever the openai SDK threw, as a ProviderError. */
export function mapOpenAIError(error: unknown, provider: string, signal: AbortSignal | undefined): ProviderError {
  if (error instanceof APIError && error.status !== undefined && !isAbortLike(error)) {
    const body = (error.error ?? {}) as { message?: unknown };
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    return providerErrorFromStatus({
      provider,
      status: error.status,
      kinds: [error.type, error.code].filter((kind): kind is string => typeof kind === "string"),
      apiMessage: typeof body.message === "string" ? body.message : error.message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      cause: error,
    });
  }
  if (error instanceof APIError && error.constructor === APIError && error.error !== undefined) {
    // An `{ "error": … }` object inside an open stream (OpenRouter, LiteLLM do this).
    const body = error.error as { message?: unknown; code?: unknown; type?: unknown };
    const status = typeof body.code === "number" ? body.code : undefined;
    return providerErrorFromStatus({
      provider,
      status,
      kinds: [body.type, body.code].filter((kind): kind is string => typeof kind === "string"),
      apiMessage: typeof body.message === "string" ? body.message : error.message,
      cause: error,
    });
  }
  return providerErrorFromFailure(provider, error, signal);
}
