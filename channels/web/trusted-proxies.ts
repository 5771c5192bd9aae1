import type { IncomingHttpHeaders } from "node:http";
import { BlockList, isIP } from "node:net";
import { ConfigError } from "../../src/errors/roundtable-error.js";

/** Where a request to the web console came from. */
export interface RequestOrigin {
  /** The client's address: the TCP peer's, or behind a trusted proxy the one it forwarded. */
  address: string;
  /** The trusted proxy that forwarded the request (absent when the client connected itself). */
  proxy?: string;
}

/** `::ffff:192.0.2.7` (IPv4 on a dual-stack socket) as `192.0.2.7`; `[::1]` as `::1`. */
function plainAddress(address: string): string {
  const trimmed = address.trim();
  const unbracketed = trimmed.startsWith("[") && trimmed.endsWith("]") ? trimmed.slice(1, -1) : trimmed;
  return unbracketed.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
}

/**
 * The reverse proxies in front of the console (`web.trustedProxies`: addresses and CIDR ranges).
 * A request's client is its TCP peer, never a header, unless that peer is one of them: then it is
 * the right-most `X-Forwarded-For` address that is not itself a trusted proxy, because that is the
 * one the nearest untrusted hop cannot choose (a proxy appends the address it saw; whatever the
 * client sent stands to its left). With no proxies listed, `X-Forwarded-For` is never read.
 */
export class TrustedProxies {
  private readonly ranges = new BlockList();
  private readonly empty: boolean;

  constructor(entries: readonly string[] = []) {
    this.empty = entries.length === 0;
    for (const entry of entries) {
      const [address = "", prefix, ...rest] = entry.trim().split("/");
      const family = isIP(address);
      const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
      if (family === 0 || rest.length > 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
        throw new ConfigError(
          `web.trustedProxies: expected an IP address or a CIDR range such as 127.0.0.1, ::1 or 10.0.0.0/8, got ${JSON.stringify(entry)}`,
        );
      }
      this.ranges.addSubnet(address, bits, family === 4 ? "ipv4" : "ipv6");
    }
  }

  /** Whether `address` (a plain IP address) is one of the trusted proxies. */
  trusts(address: string): boolean {
    const family = isIP(address);
    if (this.empty || family === 0) return false;
    return this.ranges.check(address, family === 4 ? "ipv4" : "ipv6");
  }

  /** The client a request came from (see the class comment). */
  originOf(request: { remoteAddress: string | undefined; headers: IncomingHttpHeaders }): RequestOrigin {
    const peer = request.remoteAddress === undefined ? "unknown" : plainAddress(request.remoteAddress);
    if (!this.trusts(peer)) return { address: peer };
    const header = request.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : (header ?? ""))
      .split(",")
      .map(plainAddress)
      .filter((hop) => hop !== "");
    let address = peer;
    let forwarded = false;
    // Walk back from the peer while the current hop is trusted; a hop that is not an address ends
    // the walk at the trusted proxy that handed it on.
    for (let index = hops.length - 1; index >= 0 && this.trusts(address); index--) {
      const hop = hops[index] ?? "";
      if (isIP(hop) === 0) break;
      address = hop;
      forwarded = true;
    }
    return forwarded ? { address, proxy: peer } : { address };
  }
}

/** A request's origin as log fields: `remoteAddress` is the client's, `proxy` the proxy's when there was one. */
export function originLogFields(origin: RequestOrigin): { remoteAddress: string; proxy?: string } {
  return origin.proxy === undefined
    ? { remoteAddress: origin.address }
    : { remoteAddress: origin.address, proxy: origin.proxy };
}
