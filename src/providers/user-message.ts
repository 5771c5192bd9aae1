import type { ProviderErrorCode } from "../errors/roundtable-error.js";
import { assertNever } from "../errors/assert-never.js";

/** What a chat message about a provider error may mention; never a stack trace or a secret. */
export interface UserMessageDetail {
  /** The provider's config name (`openai`, `ollama`, …). */
  provider?: string;
  retryAfterMs?: number;
  /** Where the provider's key is set (`OPENAI_API_KEY`, `providers.openrouter.apiKey`). */
  keySetting?: string;
  /** The model the request named. */
  model?: string;
  /** The API's own words about an invalid request (short, secrets masked). */
  apiMessage?: string;
}

/**
 * The short chat text for each provider error code. The log line carries the cause; this is
 * what the people in the chat read.
 */
export function userMessageFor(code: ProviderErrorCode, detail: UserMessageDetail = {}): string {
  const who = detail.provider === undefined ? "The model provider" : `The model provider (${detail.provider})`;
  switch (code) {
    case "provider.rate-limited":
      return `${who} is rate limiting us; try again ${waitHint(detail.retryAfterMs)}.`;
    case "provider.auth":
      return detail.keySetting === undefined
        ? `${who} refused the API key; an admin needs to check it.`
        : `${who} refused the API key; check ${detail.keySetting}.`;
    case "provider.context-too-long":
      return "The conversation is too long for this model; reset the chat or use a model with a larger context.";
    case "provider.content-refused":
      return "The model declined to answer this request.";
    case "provider.server":
      return `${who} had a problem on its side; try again in a moment.`;
    case "provider.invalid-request":
      return detail.apiMessage === undefined || detail.apiMessage === ""
        ? `${who} rejected the request as invalid; an admin needs to check the agent's model and settings.`
        : `${who} rejected the request as invalid (${detail.apiMessage}); an admin needs to check the agent's settings.`;
    case "provider.network":
      return `Could not reach ${who === "The model provider" ? "the model provider" : `the model provider (${detail.provider})`} or the connection broke; try again in a moment.`;
    case "provider.malformed":
      return `${who} sent an answer we could not read; try again.`;
    case "provider.aborted":
      return "The answer was stopped before it was finished.";
    default:
      return assertNever(code, "provider error code");
  }
}

function waitHint(retryAfterMs: number | undefined): string {
  if (retryAfterMs === undefined || retryAfterMs <= 60_000) return "in a minute";
  const minutes = Math.ceil(retryAfterMs / 60_000);
  return `in about ${minutes} minutes`;
}
