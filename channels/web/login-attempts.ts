import { isIPv6 } from "node:net";

/** How many failed logins one client (an IPv4 address, an IPv6 /64) may make in a minute. */
const maxFailedLoginsPerMinute = 10;
/** How many failed logins the whole console takes in a minute, from everyone together. */
const maxFailedLoginsInTotalPerMinute = 100;
const windowMs = 60_000;
/** Clients remembered at most (the oldest is forgotten first), so a flood cannot grow memory. */
const maxAddresses = 10_000;
/** The key that stands for all clients together (the global cap). */
const everyone = "*";

/**
 * The key a client is limited under: an IPv4 address itself, an IPv6 address's /64 (one host
 * usually owns a whole /64, so per address it would be unlimited).
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Failed logins per client over a sliding minute (this process's memory), and in total. The
 * address is the TCP peer's, or, when the peer is one of `web.trustedProxies`, the client's it
 * forwarded (`trusted-proxies.ts`); an unlisted proxy on the same host makes every client one
 * address, which limits them together rather than trusting a header anyone can send. The
 * total cap stops a guesser spread over many addresses or /64s.
 */
export class LoginAttempts {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number = maxFailedLoginsPerMinute,
    private readonly clock: () => number = Date.now,
    private readonly totalLimit: number = maxFailedLoginsInTotalPerMinute,
  ) {}

  /** Whether `address`'s client (or everyone together) has used up its failed logins for now. */
  blocked(address: string): boolean {
    return this.recent(clientKey(address)).length >= this.limit || this.recent(everyone).length >= this.totalLimit;
  }

  /** Count a failed login of `address`. */
  failed(address: string): void {
    this.count(clientKey(address));
    this.count(everyone);
  }

  private count(key: string): void {
    const times = this.recent(key);
    times.push(this.clock());
    this.failures.delete(key);
    this.failures.set(key, times);
    if (this.failures.size > maxAddresses) {
      const oldest = [...this.failures.keys()].find((candidate) => candidate !== everyone);
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  private recent(key: string): number[] {
    const since = this.clock() - windowMs;
    const times = (this.failures.get(key) ?? []).filter((time) => time > since);
    if (times.length === 0) this.failures.delete(key);
    else this.failures.set(key, times);
    return times;
  }
}
