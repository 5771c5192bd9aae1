import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

interface Answer {
  status: number;
  setCookie: string | undefined;
}

/**
 * One HTTP request to the service from a chosen loopback source address (`127.0.0.2` is another
 * peer than `127.0.0.1` on Linux), with the headers a client or a reverse proxy sends.
 */
function send(
  web: WebService,
  options: { from: string; path: string; headers?: Record<string, string>; form?: Record<string, string> },
): Promise<Answer> {
  const body = options.form === undefined ? undefined : new URLSearchParams(options.form).toString();
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: "127.0.0.1",
        port: web.port,
        localAddress: options.from,
        method: body === undefined ? "GET" : "POST",
        path: options.path,
        headers: {
          connection: "close",
          ...(body === undefined
            ? {}
            : { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" }),
          ...options.headers,
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => {
          const cookie = response.headers["set-cookie"]?.[0];
          resolve({ status: response.statusCode ?? 0, setCookie: cookie });
        });
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

/** The login form's POST from `from`, with extra headers (X-Forwarded-For as a client or a proxy sets it). */
function login(web: WebService, from: string, token: string, headers: Record<string, string> = {}) {
  return send(web, { from, path: "/login", form: { token }, headers });
}

/** `count` failed logins from `from`, each with the headers `headersFor(attempt)` gives. */
async function failLogins(
  web: WebService,
  from: string,
  count: number,
  headersFor: (attempt: number) => Record<string, string>,
): Promise<void> {
  for (let attempt = 1; attempt <= count; attempt++) {
    const answer = await login(web, from, `wrong-${attempt}`, headersFor(attempt));
    expect(answer.status, `failed login ${attempt}`).toBe(401);
  }
}

/** The addresses the "wrong token" log lines name. */
function loggedFailures(web: WebService): unknown[] {
  return web.logs
    .filter((line) => line.msg === "web console: login with a wrong token")
    .map((line) => (line as { remoteAddress?: unknown }).remoteAddress);
}

const trustLocalProxy = ["web:", "  trustedProxies: [127.0.0.1]"];

describe("the login limit without a trusted proxy ignores X-Forwarded-For", () => {
  it("a client cannot escape the limit by sending a new X-Forwarded-For with each attempt", async () => {
    web = await startWebService();
    await failLogins(web, "127.0.0.2", 10, (attempt) => ({ "x-forwarded-for": `198.51.100.${attempt}` }));
    const eleventh = await login(web, "127.0.0.2", web.token, { "x-forwarded-for": "198.51.100.99" });
    expect(eleventh.status).toBe(429);
    expect(eleventh.setCookie).toBeUndefined();
    expect(new Set(loggedFailures(web))).toEqual(new Set(["127.0.0.2"]));
  });

  it("a stranger cannot lock another client out by sending that client's address as X-Forwarded-For", async () => {
    web = await startWebService();
    await failLogins(web, "127.0.0.2", 10, () => ({ "x-forwarded-for": "127.0.0.3" }));
    expect((await login(web, "127.0.0.3", web.token)).status).toBe(303);
    const bearer = await send(web, {
      from: "127.0.0.3",
      path: "/operator?format=json",
      headers: { authorization: `Bearer ${web.token}` },
    });
    expect(bearer.status).toBe(200);
    expect((await login(web, "127.0.0.2", web.token)).status).toBe(429);
  });

  it("keeps the cookie rule as it was: plain HTTP from loopback is not Secure, whatever X-Forwarded-For says", async () => {
    web = await startWebService();
    const direct = await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "203.0.113.9" });
    expect(direct.status).toBe(303);
    expect(direct.setCookie).not.toMatch(/; Secure/);
    const saysHttps = await login(web, "127.0.0.1", web.token, { "x-forwarded-proto": "https" });
    expect(saysHttps.setCookie).toMatch(/; Secure/);
  });
});

describe("the login limit behind a trusted proxy (web.trustedProxies) counts each client by its own address", () => {
  it("one client's 10 failed logins through the proxy lock only that client, and the logs name it", async () => {
    web = await startWebService({ extraConfig: trustLocalProxy });
    await failLogins(web, "127.0.0.1", 10, () => ({ "x-forwarded-for": "198.51.100.7" }));
    const blocked = await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "198.51.100.7" });
    expect(blocked.status).toBe(429);
    const blockedBearer = await send(web, {
      from: "127.0.0.1",
      path: "/operator?format=json",
      headers: { authorization: `Bearer ${web.token}`, "x-forwarded-for": "198.51.100.7" },
    });
    expect(blockedBearer.status).toBe(429);
    // Another client behind the same proxy logs in, by form and by bearer.
    expect((await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "198.51.100.8" })).status).toBe(303);
    const otherBearer = await send(web, {
      from: "127.0.0.1",
      path: "/operator?format=json",
      headers: { authorization: `Bearer ${web.token}`, "x-forwarded-for": "198.51.100.8" },
    });
    expect(otherBearer.status).toBe(200);
    expect(new Set(loggedFailures(web))).toEqual(new Set(["198.51.100.7"]));
    const refused = web.logs.find((line) => line.msg.includes("too many failed logins"));
    expect(refused).toMatchObject({ remoteAddress: "198.51.100.7" });
  });

  it("takes the right-most address the proxy appended: what the client put before it picks nothing", async () => {
    web = await startWebService({ extraConfig: trustLocalProxy });
    // The client sends X-Forwarded-For itself (a victim's address, then a new one each time); the
    // proxy appends the address it saw, 203.0.113.5.
    await failLogins(web, "127.0.0.1", 10, (attempt) => ({
      "x-forwarded-for": `198.51.100.8, 192.0.2.${attempt}, 203.0.113.5`,
    }));
    expect((await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "198.51.100.66, 203.0.113.5" })).status).toBe(
      429,
    );
    expect((await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "198.51.100.8" })).status).toBe(303);
    expect(new Set(loggedFailures(web))).toEqual(new Set(["203.0.113.5"]));
  });

  it("counts a request from a peer that is not a trusted proxy by that peer, whatever its X-Forwarded-For", async () => {
    web = await startWebService({ extraConfig: trustLocalProxy });
    await failLogins(web, "127.0.0.2", 10, (attempt) => ({ "x-forwarded-for": `198.51.100.${attempt}` }));
    expect((await login(web, "127.0.0.2", web.token, { "x-forwarded-for": "198.51.100.50" })).status).toBe(429);
    // The addresses it named are not locked out: a client behind the proxy with one of them logs in.
    expect((await login(web, "127.0.0.1", web.token, { "x-forwarded-for": "198.51.100.1" })).status).toBe(303);
    expect(new Set(loggedFailures(web))).toEqual(new Set(["127.0.0.2"]));
  });

  it("makes the cookie Secure for a proxied client unless it is on this machine and the proxy did not say https", async () => {
    web = await startWebService({ extraConfig: trustLocalProxy });
    const cookieFor = async (headers: Record<string, string>) => {
      const answer = await login(web as WebService, "127.0.0.1", (web as WebService).token, headers);
      expect(answer.status).toBe(303);
      return answer.setCookie ?? "";
    };
    // A client on another machine through the proxy: never "plain HTTP from loopback".
    expect(await cookieFor({ "x-forwarded-for": "203.0.113.9" })).toMatch(/; Secure/);
    expect(await cookieFor({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "http" })).toMatch(/; Secure/);
    expect(await cookieFor({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" })).toMatch(/; Secure/);
    // A browser on this machine, directly or through the proxy, over plain HTTP: as before.
    expect(await cookieFor({})).not.toMatch(/; Secure/);
    expect(await cookieFor({ "x-forwarded-for": "127.0.0.1", "x-forwarded-proto": "http" })).not.toMatch(/; Secure/);
    expect(await cookieFor({ "x-forwarded-for": "127.0.0.1", "x-forwarded-proto": "https" })).toMatch(/; Secure/);
  });
});
