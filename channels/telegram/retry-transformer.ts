import type { ChannelClock } from "../../src/world/channel-adapter.js";
import type { Transformer } from "grammy";
import type { Logger } from "../../src/log/logger.js";

export interface RetryTransformerOptions {
  clock: ChannelClock;
  logger: Logger;
  /** A `retry_after` above this is not waited for; the refusal goes to the caller. */
  maxDelaySeconds: number;
  /** Retries of one call (after 429 or 5xx) before the refusal goes to the caller. */
  maxRetryAttempts: number;
}

/** First wait after a server error; doubled on each further one. */
const serverErrorBackoffMs = 1000;

/**
 * Every Bot API call passes here (grammY's transformer pipeline). A refusal with
 * `parameters.retry_after` (429 flood control) is retried after exactly that wait; a 5xx after
 * an exponential backoff. Waits go through the injected clock. Network failures are not
 * retried here: a send that may have landed must not be sent twice.
 */
export function retryTransformer(options: RetryTransformerOptions): Transformer {
  const { clock, logger, maxDelaySeconds, maxRetryAttempts } = options;
  return async (prev, method, payload, polyfillSignal) => {
    // grammY types its signal with the abort-controller polyfill; it is a standard one at runtime.
    const signal = polyfillSignal as unknown as AbortSignal | undefined;
    let backoffMs = serverErrorBackoffMs;
    for (let attempt = 0; ; attempt += 1) {
      const result = await prev(method, payload, polyfillSignal);
      if (result.ok || attempt >= maxRetryAttempts || signal?.aborted) return result;
      const retryAfter = result.parameters?.retry_after;
      if (typeof retryAfter === "number") {
        if (retryAfter > maxDelaySeconds) {
          logger.warn({ method, retryAfter }, "telegram asked to wait longer than allowed; call fails");
          return result;
        }
        logger.warn({ method, retryAfter, attempt: attempt + 1 }, "telegram flood control: waiting, then retrying");
        await clock.sleep(retryAfter * 1000, signal);
        continue;
      }
      if (result.error_code >= 500) {
        logger.warn({ method, status: result.error_code, backoffMs }, "telegram server error: retrying");
        await clock.sleep(backoffMs, signal);
        backoffMs *= 2;
        continue;
      }
      return result;
    }
  };
}
