import type { ProviderError, ProviderErrorCode } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import type { ModelProvider, ModelRequest, StreamPart } from "./model-provider.js";
import { abortedError, providerErrorFromFailure } from "./provider-error-map.js";

/** Waits `ms` milliseconds; rejects (or resolves early) when the signal aborts. Injected in tests. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryOptions {
  logger: Logger;
  /** Retries after the first attempt (config `providers.<name>.maxRetries`, default 3). */
  maxRetries?: number;
  /** First backoff step; doubles per retry. */
  baseDelayMs?: number;
  /** Cap of one backoff wait. */
  maxDelayMs?: number;
  /** A `retry-after` longer than this is not waited for: the error surfaces instead. */
  maxRetryAfterMs?: number;
  sleep?: Sleep;
  /** In [0, 1): jitter source (tests pin it). */
  random?: () => number;
}

/** `setTimeout` as a promise that ends early when the signal aborts. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * How long to wait before retry number `retry` (0-based), or undefined when the error must
 * surface. Transient errors only; `retryAfterMs` is honoured as given (up to the cap), else
 * capped exponential backoff with jitter in [50%, 100%] of the step.
 */
export function retryDelay(error: ProviderError, retry: number, options: RetryOptions): number | undefined {
  if (!error.transient) return undefined;
  if (retry >= (options.maxRetries ?? 3)) return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= (options.maxRetryAfterMs ?? 60_000) ? error.retryAfterMs : undefined;
  }
  const step = Math.min(options.maxDelayMs ?? 30_000, (options.baseDelayMs ?? 1_000) * 2 ** retry);
  const random = options.random ?? Math.random;
  return Math.round(step * (0.5 + random() / 2));
}

/**
 * Wraps a provider so transient errors (rate limited, server, network) are retried after their
 * retry time or with backoff, up to `maxRetries` (docs/model-errors.md). A call that fails
 * before any output is simply sent again. One that broke off after some output (a cut stream,
 * an overload mid-answer) is sent again from the start once per call: a `restart` part first
 * tells the caller to drop what it had, so the answer ends with the new text only. A second
 * break after output surfaces as the error. The SDKs' own retries are off (`maxRetries: 0`),
 * so this is the only retry layer.
 */
export function withRetries(provider: ModelProvider, options: RetryOptions): ModelProvider {
  const sleep = options.sleep ?? realSleep;
  const logger = options.logger.child({ provider: provider.name });
  return {
    name: provider.name,
    async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
      let restarted = false;
      for (let retry = 0; ; retry += 1) {
        let yielded = false;
        try {
          for await (const part of provider.stream(request, signal)) {
            yielded = true;
            yield part;
          }
          return;
        } catch (caught: unknown) {
          const error = providerErrorFromFailure(provider.name, caught, signal);
          const mayRetry = !signal?.aborted && !(yielded && restarted);
          const delay = mayRetry ? retryDelay(error, retry, options) : undefined;
          if (delay === undefined) {
            // The caller logs the failure it acts on (one line); this adds the attempts for debugging.
            if (error.code !== "provider.aborted") {
              logger.debug(
                {
                  code: error.code,
                  cause: error.message,
                  attempts: retry + 1,
                  streamed: yielded,
                  model: request.model,
                },
                "provider call gave up",
              );
            }
            throw error;
          }
          logger.info(
            {
              code: error.code,
              cause: error.message,
              retry: retry + 1,
              delayMs: delay,
              model: request.model,
              ...(yielded ? { fromStart: true } : {}),
            },
            yielded
              ? "provider call broke off after some output, sending it again from the start"
              : "provider call failed, retrying",
          );
          await sleep(delay, signal);
          if (signal?.aborted) throw abortedError(provider.name, error);
          if (yielded) {
            restarted = true;
            yield { type: "restart", code: error.code as ProviderErrorCode };
          }
        }
      }
    },
  };
}
