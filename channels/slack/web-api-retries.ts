/**
 * How a Slack Web API call is tried again (docs/reliability.md, "A platform refuses"). The Web
 * API client's own retries are off: it paused every chat's calls for one chat's 429, and sent a
 * post again after a 5xx or a cut connection although Slack may have stored it. Here, a 429 is
 * waited out for exactly its `Retry-After` in the calling chat's step only; a 5xx or a cut
 * connection, whose outcome is unknown, is sent again with backoff only when sending it twice
 * does no harm (an edit, a removal, a read) or when the caller first looks for what the
 * first try made (a post found by its metadata); anything else goes to the caller.
 */
import { PlatformApiError, type RoundtableError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock } from "../../src/world/channel-adapter.js";

/**
 * What may be done after a failure whose outcome is unknown: send it again (`idempotent`), give
 * up (`never`), or ask `recover` for what the first try made (undefined: nothing, send again).
 */
export type Resend<T> = "idempotent" | "never" | { recover: () => Promise<T | undefined> };

export interface WebApiRetryOptions {
  clock: ChannelClock;
  logger: Logger;
  /** Retries of one call after a 429 or an unknown outcome (the adapter option `retries`, default 5). */
  retries: number;
}

/** A `Retry-After` above this is not waited for: the refusal goes to the caller (whose hold is bounded). */
const longestWaitMs = 60_000;
/** First wait after a 5xx or a cut; doubled on each further one, at most {@link longestBackoffMs}. */
const firstBackoffMs = 500;
const longestBackoffMs = 8_000;

/** When to try again after a 429 (Slack did not carry the call out); undefined for anything else. */
function rateLimitOf(error: RoundtableError): number | undefined {
  return error instanceof PlatformApiError ? error.retryAfterMs : undefined;
}

/** A 5xx answer or a failed connection: Slack may or may not have carried the call out. */
function outcomeUnknown(error: RoundtableError): boolean {
  return error.code === "platform.network";
}

/** Run `run` (which throws RoundtableErrors) under the retry policy above. */
export async function withWebApiRetries<T>(
  what: string,
  run: () => Promise<T>,
  resend: Resend<T>,
  options: WebApiRetryOptions,
): Promise<T> {
  let backoffMs = firstBackoffMs;
  for (let retry = 0; ; retry += 1) {
    try {
      return await run();
    } catch (caught) {
      const error = caught as RoundtableError;
      if (retry >= options.retries) throw error;
      const waitMs = rateLimitOf(error);
      if (waitMs !== undefined) {
        if (waitMs > longestWaitMs) throw error;
        options.logger.warn(
          { method: what, retryAfterMs: waitMs, retry: retry + 1 },
          "slack rate limit: this chat waits, then retries",
        );
        await options.clock.sleep(waitMs);
        continue;
      }
      if (!outcomeUnknown(error) || resend === "never") throw error;
      options.logger.warn(
        { method: what, err: error, retry: retry + 1, backoffMs },
        "slack call failed with an unknown outcome: retrying",
      );
      await options.clock.sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, longestBackoffMs);
      if (resend !== "idempotent") {
        const made = await resend.recover();
        if (made !== undefined) {
          options.logger.info({ method: what }, "slack had carried out the call whose answer was lost; not sent again");
          return made;
        }
      }
    }
  }
}
