import { ApiError } from "@google/genai";
import type { ProviderError } from "../../errors/roundtable-error.js";
import { providerErrorFromFailure, providerErrorFromStatus, retryAfterFromHeaders } from "../provider-error-map.js";

/** What the fetch of one call saw, for what the SDK's ApiError drops (its headers). */
export interface ResponseHeadersSeen {
  headers?: Headers;
  /** The model the request named. */
  model?: string;
}

/**
 * Whatever @google/genai threw, as a ProviderError. Its ApiError carries the status and the
 * JSON body as message text (an error object inside the stream too: `got status: …. {json}`); `RetryInfo.retryDelay` in the body (Gemini's way) or a
 * `Retry-After` header says when to retry.
 */
export function mapGoogleError(
  error: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  seen: ResponseHeadersSeen = {},
): ProviderError {
  if (!(error instanceof ApiError) || signal?.aborted) return providerErrorFromFailure(provider, error, signal);
  const body = parseBody(error.message);
  const retryAfterMs = retryDelayOf(body?.details) ?? retryAfterFromHeaders(seen.headers);
  const reasons = (body?.details ?? [])
    .map((detail) => (typeof detail.reason === "string" ? detail.reason : undefined))
    .filter((reason): reason is string => reason !== undefined);
  return providerErrorFromStatus({
    provider,
    status: error.status,
    kinds: [...(typeof body?.status === "string" ? [body.status] : []), ...reasons],
    apiMessage: typeof body?.message === "string" ? body.message : error.message,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(seen.model === undefined ? {} : { model: seen.model }),
    cause: error,
  });
}

interface GoogleErrorBody {
  message?: unknown;
  status?: unknown;
  details?: Record<string, unknown>[];
}

function parseBody(message: string): GoogleErrorBody | undefined {
  const start = message.indexOf("{");
  if (start === -1) return undefined;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: GoogleErrorBody };
    const body = parsed.error;
    if (!body || typeof body !== "object") return undefined;
    return { ...body, details: Array.isArray(body.details) ? body.details : [] };
  } catch {
    return undefined;
  }
}

/** `google.rpc.RetryInfo.retryDelay` such as `"7s"` or `"0.5s"`. */
function retryDelayOf(details: Record<string, unknown>[] | undefined): number | undefined {
  for (const detail of details ?? []) {
    if (typeof detail["@type"] !== "string" || !detail["@type"].endsWith("RetryInfo")) continue;
    const delay = detail.retryDelay;
    if (typeof delay === "string" && /^\d+(\.\d+)?s$/.test(delay)) return Math.round(Number(delay.slice(0, -1)) * 1000);
  }
  return undefined;
}
