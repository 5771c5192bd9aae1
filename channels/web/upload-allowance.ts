/**
 * The web chat's uploads, per client: how many bytes of upload bodies each client (an IPv4
 * address, an IPv6 /64) has in flight at once, so a logged-in page, or a leaked token, cannot
 * hold the service's memory with many parallel uploads. The HTTP server asks before each chunk
 * it takes (`RequestBodyLimits.admit`) and releases the bytes when the read ends.
 */
import type { RequestBodyLimits } from "../../src/world/channel-adapter.js";
import { clientKey } from "./login-attempts.js";

/** How long an upload's whole body may take once it is being read. */
export const uploadTimeoutMs = 120_000;

export class UploadAllowance {
  private readonly inFlight = new Map<string, number>();

  /**
   * @param maxBodyBytes one upload's body cap
   * @param maxInFlightBytes what one client may have in flight over all its uploads at once
   */
  constructor(
    private readonly maxBodyBytes: number,
    private readonly maxInFlightBytes: number = 2 * maxBodyBytes,
    private readonly timeoutMs: number = uploadTimeoutMs,
  ) {}

  /** The body limits of one upload from `address`. */
  limitsFor(address: string): RequestBodyLimits {
    const key = clientKey(address);
    return {
      maxBytes: this.maxBodyBytes,
      timeoutMs: this.timeoutMs,
      admit: (bytes) => {
        const used = this.inFlight.get(key) ?? 0;
        if (used + bytes > this.maxInFlightBytes) {
          return {
            status: 429,
            reason: `too many upload bytes in flight from this client (at most ${this.maxInFlightBytes})`,
          };
        }
        this.inFlight.set(key, used + bytes);
        return undefined;
      },
      release: (bytes) => {
        const left = (this.inFlight.get(key) ?? 0) - bytes;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
      },
    };
  }

  /** Bytes in flight from `address`'s client now (for tests and metrics). */
  bytesInFlight(address: string): number {
    return this.inFlight.get(clientKey(address)) ?? 0;
  }
}
