/**
 * Shared helpers that turn what an SDK threw (or a broken stream) into one `ProviderError`
 * with a stable code. Each provider's `map-error.ts` reads its SDK's error shape and calls
 * {@link providerErrorFromStatus}; everything not an HTTP answer goes through
 * {@link providerErrorFromFailure}.
 */
import { ProviderError, type ProviderErrorCode } from "../errors/roundtable-error.js";
import { userMessageFor } from "./user-message.js";

/** What a provider said beyond the HTTP status, to tell special 4xx cases apart. */
export interface StatusDetail {
  provider: string;
  /** Undefined for an error event inside an open stream that carries no status. */
  status: number | undefined;
  /** The API's error type/status/code strings (e.g. `rate_limit_error`, `RESOURCE_EXHAUSTED`). */
  kinds: string[];
  /** The API's own error message (may be empty). */
  apiMessage: string;
  retryAfterMs?: number;
  /** The model the request named, for the chat text of an unknown model. */
  model?: string;
  cause: unknown;
}

const contextTooLong =
  /context[ _-]?(length|window)|too many tokens|prompt is too long|maximum context|exceeds the maximum number of tokens|input token count|reduce the length of the (messages|prompt)|request too large/i;
const contentRefused = /content[ _-]?(policy|filter|management)|safety|flagged|prohibited|responsible ?ai/i;
const badKey = /api[ _-]?key|authenticat|unauthori[sz]ed|credential|permission/i;
const quota = /insufficient_quota|quota|billing|credit balance/i;
/** Kinds that say the key was refused (OpenAI, Anthropic, Gemini and compatible servers). */
const authKinds =
  /authentication|permission_denied|permission_error|unauthenticated|invalid_api_key|incorrect_api_key|api_key_invalid/i;
/** Kinds that say the request itself is wrong: sending it again cannot help. */
const invalidKinds =
  /invalid_(request|argument|value|prompt|image|parameter)|not_found|failed_precondition|unsupported|bad_request/i;
const unknownModel =
  /model_not_found|not_found_error|\bnot_found\b|does not exist|is not found|unknown model|no such model/i;
const rateLimited = /rate[_ ]?limit|resource_exhausted|too many requests/i;

/** The environment variables a provider named after its type reads its key from (create-provider.ts). */
const keyVariables: Record<string, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GEMINI_API_KEY",
};

/**
 * Where an operator sets the key of `providers.<provider>`: the environment variable for a
 * provider named after its type, else the config key (the environment applies to no other).
 */
export function apiKeySetting(provider: string): string {
  return keyVariables[provider] ?? `providers.${provider}.apiKey`;
}

/**
 * Map an HTTP error answer, or an error event inside a stream, to a ProviderError by what it
 * says (docs/model-errors.md): rate limits and overloads are transient; a refused key and an
 * invalid request are not, and their chat text names what an operator can fix.
 */
export function providerErrorFromStatus(detail: StatusDetail): ProviderError {
  const { provider, status, apiMessage, kinds } = detail;
  const kindText = kinds.join(" ");
  const everything = `${kindText} ${apiMessage}`;
  const summary = `${provider}: ${status === undefined ? "stream error" : `HTTP ${status}`}${kindText ? ` ${kindText}` : ""}${
    apiMessage ? `: ${masked(apiMessage).slice(0, 500)}` : ""
  }`;
  const make = (code: ProviderErrorCode, extra: { transient?: boolean; userMessage?: string } = {}) =>
    new ProviderError(code, summary, {
      cause: detail.cause,
      userMessage:
        extra.userMessage ??
        userMessageFor(code, {
          provider,
          keySetting: apiKeySetting(provider),
          ...(detail.retryAfterMs === undefined ? {} : { retryAfterMs: detail.retryAfterMs }),
        }),
      ...(detail.retryAfterMs === undefined ? {} : { retryAfterMs: detail.retryAfterMs }),
      ...(extra.transient === undefined ? {} : { transient: extra.transient }),
    });
  const invalid = (): ProviderError => {
    if (unknownModel.test(everything)) {
      const model = detail.model === undefined ? "the agent names" : detail.model;
      return make("provider.invalid-request", {
        userMessage: `The model provider (${provider}) does not know the model ${model}; an admin needs to check the agent's model.`,
      });
    }
    const said = masked(apiMessage).replace(/\s+/g, " ").trim().slice(0, 160);
    const where = status === undefined ? "" : `HTTP ${status}`;
    const shown = [where, said].filter((part) => part !== "").join(": ");
    return make("provider.invalid-request", {
      userMessage: userMessageFor("provider.invalid-request", { provider, apiMessage: shown }),
    });
  };

  if (status === 429 || rateLimited.test(kindText)) {
    // Out of quota for good (no hint when to retry) is not worth retrying; Gemini says "quota"
    // for per-minute limits too, but then with a RetryInfo delay.
    if (detail.retryAfterMs === undefined && quota.test(everything) && !/rate/i.test(kindText)) {
      return make("provider.rate-limited", {
        transient: false,
        userMessage: `The model provider (${provider}) says the account is out of quota or credit; an admin needs to check billing.`,
      });
    }
    return make("provider.rate-limited");
  }
  if (status === 401 || status === 403 || authKinds.test(kindText)) return make("provider.auth");
  if (status === 413 || contextTooLong.test(everything)) return make("provider.context-too-long");
  if (
    (status === 400 || status === undefined) &&
    badKey.test(everything) &&
    /invalid|not valid|missing|expired|incorrect/i.test(everything)
  ) {
    return make("provider.auth");
  }
  if (contentRefused.test(kindText) || (status !== undefined && status < 500 && contentRefused.test(apiMessage))) {
    return make("provider.content-refused");
  }
  if (status === undefined) {
    // An error event inside an open stream: its type says whether sending again can help;
    // anything else (overloaded, server_error, api_error, a kind we do not know) is transient.
    return invalidKinds.test(kindText) || unknownModel.test(kindText) ? invalid() : make("provider.server");
  }
  if (status === 408 || status === 409 || status >= 500) return make("provider.server");
  // Any other 4xx: the request itself is wrong (unknown model, bad parameter); retrying won't help.
  return invalid();
}

/** An API message with anything that looks like a key masked (OpenAI quotes part of a wrong key). */
function masked(text: string): string {
  return text.replace(/\b(sk-|sk_|AIza|key-)[\w-]{4,}/g, "[key]");
}

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterFromHeaders(
  headers: { get(name: string): string | null } | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && milliseconds.trim() !== "") {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter === null || retryAfter.trim() === "") return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** True for the errors fetch/undici/SDKs throw when a request was aborted. */
export function isAbortLike(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === "AbortError" ||
    error.name === "APIUserAbortError" ||
    /aborted|user abort/i.test(error.message) ||
    (error.cause instanceof Error && error.cause.name === "AbortError")
  );
}

const networkCodes = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** True when the error (or one of its causes) is a transport failure. */
function isNetworkLike(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && networkCodes.has(code)) return true;
    if (
      current.name === "APIConnectionError" ||
      current.name === "APIConnectionTimeoutError" ||
      current.name === "TimeoutError" ||
      /fetch failed|terminated|socket|other side closed|network|ECONNRESET|timed? ?out/i.test(current.message)
    ) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

/** The error for a call aborted through its AbortSignal. */
export function abortedError(provider: string, cause?: unknown): ProviderError {
  return new ProviderError("provider.aborted", `${provider}: request aborted`, {
    cause,
    userMessage: userMessageFor("provider.aborted", { provider }),
  });
}

/** A stream that ended without the provider's end marker: the connection was cut. */
export function streamEndedEarlyError(provider: string, what: string): ProviderError {
  return new ProviderError("provider.network", `${provider}: stream ended before ${what}`, {
    userMessage: userMessageFor("provider.network", { provider }),
  });
}

/** The answer could not be read (bad JSON, unexpected shape). */
export function malformedError(provider: string, what: string, cause?: unknown): ProviderError {
  return new ProviderError("provider.malformed", `${provider}: malformed response: ${what}`, {
    cause,
    userMessage: userMessageFor("provider.malformed", { provider }),
  });
}

/** The model refused (content filter / refusal stop reason) and produced nothing. */
export function contentRefusedError(provider: string, what: string): ProviderError {
  return new ProviderError("provider.content-refused", `${provider}: ${what}`, {
    userMessage: userMessageFor("provider.content-refused", { provider }),
  });
}

/** No API key was configured; reported on use so one unused provider does not stop the service. */
export function missingKeyError(provider: string, environmentName: string): ProviderError {
  return new ProviderError(
    "provider.auth",
    `${provider}: no API key (set apiKey in providers.${provider} or ${environmentName})`,
    {
      userMessage: `The model provider (${provider}) has no API key configured; an admin needs to set ${environmentName}.`,
    },
  );
}

/**
 * Everything that is not an HTTP answer: aborts, transport failures, unreadable JSON. An
 * existing ProviderError passes through unchanged.
 */
export function providerErrorFromFailure(
  provider: string,
  error: unknown,
  signal: AbortSignal | undefined,
): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal?.aborted) return abortedError(provider, error);
  if (isAbortLike(error)) {
    // Aborted, but not by our caller: the SDK's own timeout fired.
    return new ProviderError("provider.network", `${provider}: request timed out: ${errorText(error)}`, {
      cause: error,
      userMessage: userMessageFor("provider.network", { provider }),
    });
  }
  if (error instanceof SyntaxError || /JSON|parse|Incomplete|unexpected token/i.test(errorText(error))) {
    if (!isNetworkLike(error)) return malformedError(provider, errorText(error), error);
  }
  if (isNetworkLike(error)) {
    return new ProviderError("provider.network", `${provider}: network failure: ${errorText(error)}`, {
      cause: error,
      userMessage: userMessageFor("provider.network", { provider }),
    });
  }
  return malformedError(provider, errorText(error), error);
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : "";
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}
