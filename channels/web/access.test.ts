import { describe, expect, it } from "vitest";
import { checkCrossSite, cookieIsSecure, decideAccess, type WebAuth } from "./access.js";
import { WebCredentials } from "./credentials.js";
import { LoginAttempts } from "./login-attempts.js";
import { safeNext } from "./safe-next.js";
import { memoryLoginSessions, sessionLifetimeMs, WebSessions } from "./sessions.js";
import { TrustedProxies } from "./trusted-proxies.js";

function auth(users: Record<string, string> = {}, now: () => Date = () => new Date("2026-11-26T12:00:00Z")): WebAuth {
  const credentials = new WebCredentials("shared-token", users);
  return {
    credentials,
    sessions: new WebSessions(memoryLoginSessions(), credentials, now),
    attempts: new LoginAttempts(),
    proxies: new TrustedProxies(),
  };
}

/** What nginx's default `proxy_pass` sends from the same host: loopback peer, loopback Host, no X-Forwarded-For. */
const sameHostProxy = { remoteAddress: "127.0.0.1", headers: { host: "127.0.0.1:8080" } };

describe("decideAccess", () => {
  it("never takes the network position as a credential: loopback without a token must log in", async () => {
    expect(await decideAccess(sameHostProxy, auth())).toEqual({ outcome: "login", reason: "not logged in" });
    expect(await decideAccess({ remoteAddress: "::1", headers: { host: "localhost" } }, auth())).toMatchObject({
      outcome: "login",
    });
  });

  it("takes the shared token or a person's token as a bearer, naming whose it is", async () => {
    const people = auth({ ana: "ana-token-1", bob: "bob-token-2" });
    const bearer = (token: string) => ({ ...sameHostProxy, headers: { authorization: `Bearer ${token}` } });
    expect(await decideAccess(bearer("shared-token"), people)).toEqual({
      outcome: "allowed",
      by: "token",
      login: { kind: "shared" },
    });
    expect(await decideAccess(bearer("bob-token-2"), people)).toEqual({
      outcome: "allowed",
      by: "token",
      login: { kind: "person", name: "bob" },
    });
    expect((await decideAccess(bearer("nope"), people)).outcome).toBe("login");
  });

  it("takes a stored session's cookie until it ends, expires, or its token changes", async () => {
    let now = new Date("2026-11-26T12:00:00Z");
    const people = auth({ ana: "ana-token-1" }, () => now);
    const id = await people.sessions.open({ kind: "person", name: "ana" });
    const withCookie = { ...sameHostProxy, headers: { cookie: `a=b; roundtable_console=${id}` } };
    expect(await decideAccess(withCookie, people)).toEqual({
      outcome: "allowed",
      by: "cookie",
      login: { kind: "person", name: "ana" },
    });
    // The same stored session under a changed token (a new credentials object) no longer holds.
    const rotated = new WebCredentials("shared-token", { ana: "ana-token-NEW" });
    const afterRotation = {
      ...people,
      credentials: rotated,
      sessions: new WebSessions(memoryLoginSessions(), rotated),
    };
    expect((await decideAccess(withCookie, afterRotation)).outcome).toBe("login");
    now = new Date(now.getTime() + sessionLifetimeMs);
    expect(await decideAccess(withCookie, people)).toEqual({
      outcome: "login",
      reason: "the login has ended or expired",
    });
    const other = await people.sessions.open({ kind: "shared" });
    await people.sessions.end(other);
    expect(
      (await decideAccess({ ...sameHostProxy, headers: { cookie: `roundtable_console=${other}` } }, people)).outcome,
    ).toBe("login");
    // A guessed value or the token itself is no cookie.
    const guessed = { ...sameHostProxy, headers: { cookie: "roundtable_console=shared-token" } };
    expect((await decideAccess(guessed, people)).outcome).toBe("login");
  });

  it("counts wrong bearer tokens as failed logins of the address: the 11th in a minute is refused unchecked", async () => {
    const limited = auth();
    const wrong = { remoteAddress: "203.0.113.5", headers: { authorization: "Bearer nope" } };
    for (let attempt = 0; attempt < 10; attempt++) expect((await decideAccess(wrong, limited)).outcome).toBe("login");
    const right = { remoteAddress: "203.0.113.5", headers: { authorization: "Bearer shared-token" } };
    expect((await decideAccess(right, limited)).outcome).toBe("throttled");
    const elsewhere = { remoteAddress: "198.51.100.1", headers: { authorization: "Bearer shared-token" } };
    expect((await decideAccess(elsewhere, limited)).outcome).toBe("allowed");
  });
});

describe("LoginAttempts", () => {
  it("allows 10 failures a minute per address, over a sliding minute", () => {
    let now = 0;
    const attempts = new LoginAttempts(10, () => now);
    for (let index = 0; index < 10; index++) {
      expect(attempts.blocked("a")).toBe(false);
      attempts.failed("a");
      now += 1000;
    }
    expect(attempts.blocked("a")).toBe(true);
    expect(attempts.blocked("b")).toBe(false);
    now = 60_001; // the first failure (at 0) has left the minute
    expect(attempts.blocked("a")).toBe(false);
  });
});

describe("WebCredentials", () => {
  it("gives a person's login its name and a shared-token holder a label (operator once people are named)", () => {
    const shared = new WebCredentials("shared-token");
    expect(shared.actingName({ kind: "shared" }, "ana")).toBe("ana");
    const people = new WebCredentials("shared-token", { ana: "ana-token-1" });
    expect(people.actingName({ kind: "person", name: "ana" }, "bob")).toBe("ana");
    expect(people.actingName({ kind: "shared" }, "ana")).toBe("operator");
    expect(people.match("ana-token-1")).toEqual({ kind: "person", name: "ana" });
    expect(people.match("ana-token-")).toBeUndefined();
  });
});

describe("safeNext", () => {
  it("keeps paths on this site", () => {
    expect(safeNext("/operator")).toBe("/operator");
    expect(safeNext("/chat?world=team")).toBe("/chat?world=team");
    expect(safeNext(null)).toBe("/");
  });

  it("turns every way off-site into /", () => {
    for (const next of [
      "//evil.example/",
      "/\\evil.example/",
      "/\t/evil.example/",
      "/\n/evil.example/",
      "/ /evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "evil.example",
      "/\u0000/evil",
      "\\\\evil.example",
      // Dot segments that a URL parser folds into a leading `//` (another host to a browser).
      "/a/..//evil.example/",
      "/.//evil.example",
      "/%2e%2e//evil.example/x",
    ]) {
      expect(safeNext(next), JSON.stringify(next)).toBe("/");
    }
    // `next=/%09/evil.example/` arrives decoded (a tab) from the form and the query alike.
    expect(safeNext(new URLSearchParams("next=/%09/evil.example/").get("next"))).toBe("/");
  });
});

describe("cookieIsSecure", () => {
  const secure = (address: string, headers: Record<string, string> = {}, encrypted = false, proxy?: string) =>
    cookieIsSecure({ origin: proxy === undefined ? { address } : { address, proxy }, headers, encrypted });

  it("is Secure unless plain HTTP from a loopback address", () => {
    expect(secure("127.0.0.1")).toBe(false);
    expect(secure("::1")).toBe(false);
    expect(secure("127.0.0.1", { "x-forwarded-proto": "https" })).toBe(true);
    expect(secure("192.0.2.7")).toBe(true);
    expect(secure("127.0.0.1", {}, true)).toBe(true);
  });

  it("behind a trusted proxy, judges the client it forwarded, not the proxy's loopback address", () => {
    expect(secure("203.0.113.9", {}, false, "127.0.0.1")).toBe(true);
    expect(secure("203.0.113.9", { "x-forwarded-proto": "http" }, false, "127.0.0.1")).toBe(true);
    expect(secure("127.0.0.1", { "x-forwarded-proto": "http" }, false, "127.0.0.1")).toBe(false);
    expect(secure("127.0.0.1", { "x-forwarded-proto": "https" }, false, "127.0.0.1")).toBe(true);
  });
});

describe("checkCrossSite", () => {
  const byCookie = { outcome: "allowed", by: "cookie", login: { kind: "shared" } } as const;
  it("lets same-origin browser requests and bearer programs through", () => {
    expect(checkCrossSite({ "sec-fetch-site": "same-origin" }, byCookie)).toEqual({ ok: true });
    expect(checkCrossSite({ origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080" }, byCookie)).toEqual({ ok: true });
    expect(checkCrossSite({}, { outcome: "allowed", by: "token", login: { kind: "shared" } })).toEqual({ ok: true });
  });

  it("refuses other sites and requests that say nothing", () => {
    expect(checkCrossSite({ "sec-fetch-site": "same-site" }, byCookie)).toEqual({
      ok: false,
      reason: "Sec-Fetch-Site is same-site",
    });
    expect(checkCrossSite({ origin: "http://evil.example", host: "127.0.0.1:8080" }, byCookie).ok).toBe(false);
    expect(checkCrossSite({ origin: "null", host: "127.0.0.1:8080" }, byCookie).ok).toBe(false);
    expect(checkCrossSite({}, byCookie).ok).toBe(false);
    expect(checkCrossSite({ "sec-fetch-site": "cross-site" }, byCookie).ok).toBe(false);
  });
});
