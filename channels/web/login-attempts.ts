/** How many failed logins one client address may make in a minute. */
const maxFailedLoginsPerMinute = 10;
const windowMs = 60_000;
/** Addresses remembered at most (the oldest is forgotten first), so a flood cannot grow memory. */
const maxAddresses = 10_000;

/**
 * Failed logins per client address over a sliding minute (this process's memory). The address
 * is the TCP peer's, or, when the peer is one of `web.trustedProxies`, the client's it forwarded
 * (`trusted-proxies.ts`); an unlisted proxy on the same host makes every client one address,
 * which limits them together rather than trusting a header anyone can send.
 */
export class LoginAttempts {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number = maxFailedLoginsPerMinute,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Whether `address` has used up its failed logins for now. */
  blocked(address: string): boolean {
    return this.recent(address).length >= this.limit;
  }

  /** Count a failed login of `address`. */
  failed(address: string): void {
    const times = this.recent(address);
    times.push(this.clock());
    this.failures.delete(address);
    this.failures.set(address, times);
    if (this.failures.size > maxAddresses) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  private recent(address: string): number[] {
    const since = this.clock() - windowMs;
    const times = (this.failures.get(address) ?? []).filter((time) => time > since);
    if (times.length === 0) this.failures.delete(address);
    else this.failures.set(address, times);
    return times;
  }
}
