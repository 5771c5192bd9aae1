/**
 * How a Discord REST call is tried again after a 5xx or a cut connection (docs/reliability.md,
 * "A platform refuses"). discord.js's REST keeps its per-route buckets and 429 waits (a 429 holds
 * only its route's bucket: one channel), but its own retries are off (`retries: 0`): it sent a
 * webhook post again after a 502 although Discord had stored it. Here a call whose outcome is
 * unknown is sent again with backoff only when sending it twice does no harm (an edit, a
 * removal, a read, a post under its nonce) or after the caller looked for what the first try
 * made (a webhook post read back); anything else goes to the caller.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock } from "../../src/world/channel-adapter.js";

/**
 * After a failure of unknown outcome: send again (`idempotent`), give up (`never`), or ask
 * `recover` for what the first try made (undefined: nothing was made, send again).
 */
export type Resend<T> = "idempotent" | "never" | { recover: () => Promise<T | undefined> };

export interface RestRetryOptions {
  clock: ChannelClock;
  logger: Logger;
  /** Retries of one call after a 5xx or a cut connection (default 3). */
  retries?: number;
}

const firstBackoffMs = 500;
const longestBackoffMs = 8_000;

/** A 5xx answer or a failed connection (discord.js's own error kinds): Discord may have carried the call out. */
export function outcomeUnknown(error: unknown): boolean {
  if (error instanceof RateLimitError) return false;
  if (error instanceof DiscordAPIError || error instanceof HTTPError) return error.status >= 500;
  return true;
}

/** Run one REST call (throwing discord.js's errors) under the policy above; the last error is thrown as it came. */
export async function withRestRetries<T>(
  what: string,
  run: () => Promise<T>,
  resend: Resend<T>,
  options: RestRetryOptions,
): Promise<T> {
  let backoffMs = firstBackoffMs;
  for (let retry = 0; ; retry += 1) {
    try {
      return await run();
    } catch (error) {
      if (resend === "never" || retry >= (options.retries ?? 3) || !outcomeUnknown(error)) throw error;
      options.logger.warn(
        { call: what, status: (error as { status?: unknown }).status, retry: retry + 1, backoffMs },
        "discord call failed with an unknown outcome: retrying",
      );
      await options.clock.sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, longestBackoffMs);
      if (resend !== "idempotent") {
        const made = await resend.recover();
        if (made !== undefined) {
          options.logger.info({ call: what }, "discord had carried out the call whose answer was lost; not sent again");
          return made;
        }
      }
    }
  }
}
