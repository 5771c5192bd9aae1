import { describe, expect, it } from "vitest";
import { checkCrossSite, decideAccess, hostName, sessionCookieValue } from "./access.js";

const local = { remoteAddress: "127.0.0.1", headers: { host: "127.0.0.1:8080" } };

describe("decideAccess without a token", () => {
  it("serves loopback peers asking for a loopback host", () => {
    expect(decideAccess(local, undefined)).toEqual({ outcome: "allowed", by: "loopback" });
    expect(decideAccess({ remoteAddress: "::1", headers: { host: "[::1]:8080" } }, undefined).outcome).toBe("allowed");
    expect(decideAccess({ remoteAddress: "::ffff:127.0.0.1", headers: { host: "localhost" } }, undefined).outcome).toBe(
      "allowed",
    );
  });

  it("refuses any other address, naming it", () => {
    expect(decideAccess({ remoteAddress: "::ffff:10.0.0.7", headers: { host: "10.0.0.1:8080" } }, undefined)).toEqual({
      outcome: "forbidden",
      reason: "request from 10.0.0.7: without WEB_CONSOLE_TOKEN the web console answers only on 127.0.0.1 and ::1",
    });
    expect(decideAccess({ remoteAddress: undefined, headers: {} }, undefined).outcome).toBe("forbidden");
  });

  it("refuses a foreign host name (DNS rebinding) and proxied requests", () => {
    expect(decideAccess({ ...local, headers: { host: "evil.example:8080" } }, undefined).outcome).toBe("forbidden");
    expect(
      decideAccess({ ...local, headers: { ...local.headers, "x-forwarded-for": "1.2.3.4" } }, undefined).outcome,
    ).toBe("forbidden");
  });
});

describe("decideAccess with a token", () => {
  it("asks everyone for it, loopback too", () => {
    expect(decideAccess(local, "t0ken")).toEqual({ outcome: "login", reason: "not logged in" });
  });

  it("takes the bearer token or the login cookie, and nothing else", () => {
    const remote = { remoteAddress: "203.0.113.5", headers: { host: "console.example" } };
    expect(decideAccess({ ...remote, headers: { ...remote.headers, authorization: "Bearer t0ken" } }, "t0ken")).toEqual(
      {
        outcome: "allowed",
        by: "token",
      },
    );
    expect(decideAccess({ ...remote, headers: { authorization: "Bearer nope" } }, "t0ken").outcome).toBe("login");
    const cookie = `a=b; roundtable_console=${sessionCookieValue("t0ken")}`;
    expect(decideAccess({ ...remote, headers: { cookie } }, "t0ken")).toEqual({ outcome: "allowed", by: "cookie" });
    expect(decideAccess({ ...remote, headers: { cookie: "roundtable_console=t0ken" } }, "t0ken")).toEqual({
      outcome: "login",
      reason: "the login cookie is stale",
    });
  });
});

describe("checkCrossSite", () => {
  const byLoopback = { outcome: "allowed", by: "loopback" } as const;
  it("lets same-origin browser requests and bearer programs through", () => {
    expect(checkCrossSite({ "sec-fetch-site": "same-origin" }, byLoopback)).toEqual({ ok: true });
    expect(checkCrossSite({ origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080" }, byLoopback)).toEqual({
      ok: true,
    });
    expect(checkCrossSite({}, { outcome: "allowed", by: "token" })).toEqual({ ok: true });
  });

  it("refuses other sites and requests that say nothing", () => {
    expect(checkCrossSite({ "sec-fetch-site": "same-site" }, byLoopback)).toEqual({
      ok: false,
      reason: "Sec-Fetch-Site is same-site",
    });
    expect(checkCrossSite({ origin: "http://evil.example", host: "127.0.0.1:8080" }, byLoopback).ok).toBe(false);
    expect(checkCrossSite({ origin: "null", host: "127.0.0.1:8080" }, byLoopback).ok).toBe(false);
    expect(checkCrossSite({}, byLoopback).ok).toBe(false);
    // A cookie login does not excuse a cross-site form post.
    expect(checkCrossSite({ "sec-fetch-site": "cross-site" }, { outcome: "allowed", by: "cookie" }).ok).toBe(false);
  });
});

describe("hostName", () => {
  it("drops the port and keeps IPv6 brackets", () => {
    expect(hostName("LocalHost:8080")).toBe("localhost");
    expect(hostName("[::1]:8080")).toBe("[::1]");
    expect(hostName(undefined)).toBe("");
  });
});
