import type { IncomingHttpHeaders } from "node:http";
import type { WebCredentials, WebLogin } from "./credentials.js";
import type { LoginAttempts } from "./login-attempts.js";
import type { WebSessions } from "./sessions.js";
import type { RequestOrigin, TrustedProxies } from "./trusted-proxies.js";

/** The cookie the login sets: a random session id kept server-side (see `sessions.ts`). */
export const sessionCookieName = "roundtable_console";

/** What a request to the web console is allowed to do. */
export type AccessDecision =
  | { outcome: "allowed"; by: "token" | "cookie"; login: WebLogin }
  /** The request did not prove a login: show the login form (pages) or answer 401. */
  | { outcome: "login"; reason: string }
  /** Too many failed logins from this address in the last minute. */
  | { outcome: "throttled"; reason: string };

/** The facts about a request that access depends on. */
export interface AccessRequest {
  remoteAddress: string | undefined;
  headers: IncomingHttpHeaders;
}

/**
 * What access is checked against: the tokens, the stored sessions, the failed-login counter and
 * the proxies whose `X-Forwarded-For` names the client.
 */
export interface WebAuth {
  credentials: WebCredentials;
  sessions: WebSessions;
  attempts: LoginAttempts;
  proxies: TrustedProxies;
}

const loopbackAddresses = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function isLoopbackAddress(address: string): boolean {
  return loopbackAddresses.has(address) || /^(::ffff:)?127\./.test(address);
}

/** The bearer token of an `Authorization` header, if any. */
function bearerToken(headers: IncomingHttpHeaders): string | undefined {
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
 * Who may use the web console. **Network position is never a credential**: every request must
 * present a token (`Authorization: Bearer`, the shared `WEB_CONSOLE_TOKEN` or a person's token
 * of `channels.web.users`) or the cookie of a stored login, from the loopback interface too (a
 * reverse proxy on the same machine makes every request come from 127.0.0.1). A wrong bearer
 * token counts as a failed login of the client's address (the peer's, or behind a trusted proxy
 * the one it forwarded: see `trusted-proxies.ts`).
 */
export async function decideAccess(request: AccessRequest, auth: WebAuth): Promise<AccessDecision> {
  const { headers } = request;
  const bearer = bearerToken(headers);
  if (bearer !== undefined) {
    const { address } = auth.proxies.originOf(request);
    if (auth.attempts.blocked(address)) {
      return { outcome: "throttled", reason: `too many failed logins from ${address}: wait a minute` };
    }
    const login = auth.credentials.match(bearer);
    if (login) return { outcome: "allowed", by: "token", login };
    auth.attempts.failed(address);
    return { outcome: "login", reason: "the bearer token is wrong" };
  }
  const session = cookieValue(headers, sessionCookieName);
  if (session === undefined || session === "") return { outcome: "login", reason: "not logged in" };
  const login = await auth.sessions.resolve(session);
  return login
    ? { outcome: "allowed", by: "cookie", login }
    : { outcome: "login", reason: "the login has ended or expired" };
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

/**
 * Whether the session cookie gets `Secure`: always, unless the request came over plain HTTP
 * from a loopback client (a browser on this machine, or a proxy here that did not say it took
 * the request over HTTPS). Behind a trusted proxy the client is the one it forwarded, so a
 * client on another machine gets `Secure` whatever the proxy's own address; `X-Forwarded-Proto:
 * https` makes any request `Secure` (a header can only make the cookie stricter).
 */
export function cookieIsSecure(request: {
  origin: RequestOrigin;
  headers: IncomingHttpHeaders;
  encrypted: boolean;
}): boolean {
  if (request.encrypted) return true;
  if (!isLoopbackAddress(request.origin.address)) return true;
  return request.headers["x-forwarded-proto"] === "https";
}
