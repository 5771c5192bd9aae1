import { APIError } from "@anthropic-ai/sdk";
import type { ProviderError } from "../../errors/roundtable-error.js";
import {
  isAbortLike,
  providerErrorFromFailure,
  providerErrorFromStatus,
  retryAfterFromHeaders,
} from "../provider-error-map.js";

/**
 * Whatever the Anthropic SDK threw, as a ProviderError (an `error` event mid-stream included,
 * read by its error type); `model` is the one the request named.
 */
export function mapAnthropicError(
  error: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  model?: string,
): ProviderError {
  const isHttpAnswer = error instanceof APIError && (error.status !== undefined || error.type !== null);
  if (
    !isHttpAnswer ||
    isAbortLike(error) ||
    error.name === "APIConnectionError" ||
    error.name === "APIConnectionTimeoutError"
  ) {
    return providerErrorFromFailure(provider, error, signal);
  }
  const retryAfterMs = retryAfterFromHeaders(error.headers);
  const status = error.status ?? statusOfType(error.type);
  return providerErrorFromStatus({
    provider,
    status,
    kinds: error.type === null ? [] : [error.type],
    apiMessage: error.apiMessage ?? error.message,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(model === undefined ? {} : { model }),
    cause: error,
  });
}

/** An `error` event inside a stream has no HTTP status, only its type. */
function statusOfType(type: string | null): number | undefined {
  switch (type) {
    case "overloaded_error":
      return 529;
    case "api_error":
      return 500;
    case "rate_limit_error":
      return 429;
    default:
      return undefined;
  }
}
