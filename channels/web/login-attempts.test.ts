import { describe, expect, it } from "vitest";
import { clientKey, LoginAttempts } from "./login-attempts.js";

describe("failed logins", () => {
  it("are limited per IPv6 /64 (any address in it), per IPv4 address", () => {
    const now = 1_000_000;
    const attempts = new LoginAttempts(10, () => now);
    for (let host = 1; host <= 10; host += 1) attempts.failed(`2001:db8:1:2::${host.toString(16)}`);
    expect(attempts.blocked("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(true);
    expect(attempts.blocked("2001:db8:1:3::1")).toBe(false);
    for (let count = 0; count < 10; count += 1) attempts.failed("192.0.2.7");
    expect(attempts.blocked("192.0.2.7")).toBe(true);
    expect(attempts.blocked("192.0.2.8")).toBe(false);
    expect(clientKey("2001:0db8:0001:0002:0000:0000:0000:0001")).toBe(clientKey("2001:db8:1:2::abcd"));
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
  });

  it("are capped in total, so a guesser spread over many /64s is stopped too", () => {
    let now = 1_000_000;
    const attempts = new LoginAttempts(10, () => now, 100);
    for (let net = 0; net < 100; net += 1) attempts.failed(`2001:db8:${net.toString(16)}::1`);
    expect(attempts.blocked("2001:db8:ffff::1")).toBe(true);
    expect(attempts.blocked("198.51.100.1")).toBe(true);
    now += 61_000;
    expect(attempts.blocked("198.51.100.1")).toBe(false);
  });
});
