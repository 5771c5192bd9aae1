import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** The cookie the login form sets. Its value is derived from the token, never the token itself. */
export const sessionCookieName = "roundtable_console";

/** What a request to the web console is allowed to do. */
export type AccessDecision =
  | { outcome: "allowed"; by: "loopback" | "token" | "cookie" }
  /** A token is configured and the request did not present it: show the login form. */
  | { outcome: "login"; reason: string }
  | { outcome: "forbidden"; reason: string };

/** The facts about a request that access depends on. */
export interface AccessRequest {
  remoteAddress: string | undefined;
  headers: IncomingHttpHeaders;
}

const loopbackAddresses = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (loopbackAddresses.has(address) || /^(::ffff:)?127\./.test(address));
}

/** The host name of a `Host` header without its port (`[::1]` keeps its brackets). */
export function hostName(host: string | undefined): string {
  if (host === undefined) return "";
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  return trimmed.split(":")[0] ?? "";
}

/** The cookie value that proves a login: an HMAC of a fixed label under the token. */
export function sessionCookieValue(token: string): string {
  return createHmac("sha256", token).update("roundtable web console session").digest("base64url");
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token of an `Authorization` header, if any. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  return match?.[1];
}

/** One cookie's value from the `Cookie` header. */
export function cookieValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/**
 * Who may see the web console. With `WEB_CONSOLE_TOKEN` set, every request must present it (a
 * bearer header or the login cookie), also from the loopback interface: behind a reverse proxy
 * on the same machine every request comes from 127.0.0.1. Without a token only the machine
 * itself is served: the peer must be a loopback address, the `Host` a loopback name (a page
 * from another site that rebinds its DNS name to 127.0.0.1 still sends its own name), and no
 * proxy header may say the request came from elsewhere.
 */
export function decideAccess(request: AccessRequest, token: string | undefined): AccessDecision {
  const { headers } = request;
  if (token !== undefined && token !== "") {
    const bearer = bearerToken(headers);
    if (bearer !== undefined) {
      return sameSecret(bearer, token)
        ? { outcome: "allowed", by: "token" }
        : { outcome: "login", reason: "the bearer token is wrong" };
    }
    const cookie = cookieValue(headers, sessionCookieName);
    if (cookie !== undefined && sameSecret(cookie, sessionCookieValue(token)))
      return { outcome: "allowed", by: "cookie" };
    return { outcome: "login", reason: cookie === undefined ? "not logged in" : "the login cookie is stale" };
  }
  if (!isLoopbackAddress(request.remoteAddress)) {
    const address = request.remoteAddress?.replace(/^::ffff:(?=\d+\.)/, "") ?? "an unknown address";
    return {
      outcome: "forbidden",
      reason: `request from ${address}: without WEB_CONSOLE_TOKEN the web console answers only on 127.0.0.1 and ::1`,
    };
  }
  if (headers["x-forwarded-for"] !== undefined || headers.forwarded !== undefined) {
    return {
      outcome: "forbidden",
      reason: "request forwarded by a proxy: set WEB_CONSOLE_TOKEN to serve the web console beyond this machine",
    };
  }
  const host = hostName(headers.host);
  if (!loopbackHosts.has(host)) {
    return {
      outcome: "forbidden",
      reason: `request for host "${host}": without WEB_CONSOLE_TOKEN the web console answers only to localhost, 127.0.0.1 and [::1]`,
    };
  }
  return { outcome: "allowed", by: "loopback" };
}

/** Whether a state-changing request may proceed, and why not. */
export type CrossSiteDecision = { ok: true } | { ok: false; reason: string };

/**
 * Cross-site request protection for every POST. A bearer request comes from a program, not a
 * browser (browsers never add the header on their own), so it passes. A browser request must
 * come from this very origin: `Sec-Fetch-Site: same-origin` (every current browser sends it),
 * or, from an older browser without it, an `Origin` whose host is the `Host` asked for.
 */
export function checkCrossSite(headers: IncomingHttpHeaders, decision: AccessDecision): CrossSiteDecision {
  if (decision.outcome === "allowed" && decision.by === "token") return { ok: true };
  const site = headers["sec-fetch-site"];
  if (site !== undefined) {
    return site === "same-origin" ? { ok: true } : { ok: false, reason: `Sec-Fetch-Site is ${site}` };
  }
  const origin = headers.origin;
  if (origin === undefined) return { ok: false, reason: "neither Sec-Fetch-Site nor Origin was sent" };
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return { ok: false, reason: `Origin ${origin} is not a URL` };
  }
  return originHost === (headers.host ?? "").toLowerCase()
    ? { ok: true }
    : { ok: false, reason: `Origin ${origin} is not this site` };
}
