import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/roundtable-error.js";
import { TrustedProxies } from "./trusted-proxies.js";

const from = (remoteAddress: string | undefined, forwardedFor?: string | string[]) => ({
  remoteAddress,
  headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
});

describe("TrustedProxies.originOf", () => {
  it("without trusted proxies is the TCP peer, X-Forwarded-For never read", () => {
    const none = new TrustedProxies();
    expect(none.originOf(from("127.0.0.1", "198.51.100.7"))).toEqual({ address: "127.0.0.1" });
    expect(none.originOf(from("::ffff:192.0.2.1", "198.51.100.7"))).toEqual({ address: "192.0.2.1" });
    expect(none.originOf(from(undefined))).toEqual({ address: "unknown" });
  });

  it("from a trusted peer is the right-most forwarded address that is not a trusted proxy", () => {
    const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
    expect(proxies.originOf(from("::ffff:127.0.0.1", "198.51.100.7"))).toEqual({
      address: "198.51.100.7",
      proxy: "127.0.0.1",
    });
    // The client's own entries stand to the left of what the proxies appended.
    expect(proxies.originOf(from("127.0.0.1", "192.0.2.66, 198.51.100.7, 10.1.2.3"))).toEqual({
      address: "198.51.100.7",
      proxy: "127.0.0.1",
    });
    // Two X-Forwarded-For lines (Node joins them, or hands a list): read as one.
    expect(proxies.originOf(from("127.0.0.1", ["192.0.2.66", "198.51.100.7"]))).toMatchObject({
      address: "198.51.100.7",
    });
    expect(proxies.originOf(from("fd00::1", "2001:db8::5"))).toEqual({ address: "2001:db8::5", proxy: "fd00::1" });
    expect(proxies.originOf(from("127.0.0.1", "[2001:db8::6]"))).toMatchObject({ address: "2001:db8::6" });
  });

  it("stops at the trusted hop before an entry that is not an address, and at the left-most when all are trusted", () => {
    const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
    expect(proxies.originOf(from("127.0.0.1", "198.51.100.7, unknown, 10.0.0.2"))).toEqual({
      address: "10.0.0.2",
      proxy: "127.0.0.1",
    });
    expect(proxies.originOf(from("127.0.0.1", "198.51.100.7:4711"))).toEqual({ address: "127.0.0.1" });
    expect(proxies.originOf(from("127.0.0.1", "10.0.0.3, 10.0.0.2"))).toEqual({
      address: "10.0.0.3",
      proxy: "127.0.0.1",
    });
    expect(proxies.originOf(from("127.0.0.1"))).toEqual({ address: "127.0.0.1" });
  });

  it("from a peer that is not trusted is that peer, whatever it forwards", () => {
    const proxies = new TrustedProxies(["127.0.0.1"]);
    expect(proxies.originOf(from("127.0.0.2", "198.51.100.7"))).toEqual({ address: "127.0.0.2" });
    expect(proxies.originOf(from("192.0.2.1", "127.0.0.1"))).toEqual({ address: "192.0.2.1" });
  });

  it("refuses an entry that is neither an address nor a CIDR range, naming the key", () => {
    for (const entry of ["localhost", "10.0.0.0/33", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x"]) {
      expect(() => new TrustedProxies([entry]), entry).toThrow(ConfigError);
      expect(() => new TrustedProxies([entry]), entry).toThrow(/^web\.trustedProxies: expected an IP address/);
    }
  });
});
