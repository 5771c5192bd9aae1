/**
 * Time as a channel adapter sees it. Tests inject their own clock so that throttling and retry
 * waits are checked by counting calls, never by measuring wall-clock time.
 */
export interface ChannelClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds (or rejects when `signal` aborts first). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: ChannelClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason ?? new Error("aborted"));
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason ?? new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
