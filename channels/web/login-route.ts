import type { IncomingMessage } from "node:http";
import type { Logger } from "../../src/log/logger.js";
import { cookieIsSecure, cookieValue, sessionCookieName, type WebAuth } from "./access.js";
import { type GuardedRoute, leaveBodyUnread } from "./guard.js";
import { readBody } from "../kit/http-text.js";
import { sendHtml } from "./http-io.js";
import { renderLoginPage } from "./login-page.js";
import { safeNext } from "./safe-next.js";
import { sessionLifetimeMs } from "./sessions.js";
import { originLogFields, type RequestOrigin } from "./trusted-proxies.js";

/** The client a request came from: its peer, or behind a trusted proxy the address it forwarded. */
function originOf(request: IncomingMessage, auth: WebAuth): RequestOrigin {
  return auth.proxies.originOf({ remoteAddress: request.socket.remoteAddress, headers: request.headers });
}

function cookieAttributes(request: IncomingMessage, origin: RequestOrigin): string {
  const secure = cookieIsSecure({
    origin,
    headers: request.headers,
    encrypted: "encrypted" in request.socket && request.socket.encrypted === true,
  });
  return `Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** The login form's body cap (the form holds a token and a `next` path). */
const loginFormBytes = 16 * 1024;

/**
 * `/login`: the form, and its POST that checks the `token` field (the shared token or a
 * person's), opens a stored session and sets its cookie. At most 10 failed logins a minute
 * per client address (behind a trusted proxy, the client's it forwarded); `next` is a path on
 * this site or `/`.
 */
export function loginRoute(auth: WebAuth, logger: Logger): GuardedRoute {
  return {
    path: "/login",
    kind: "open",
    methods: ["GET", "POST"],
    // Read before any login: a form of a token and a path, never more.
    maxBodyBytes: loginFormBytes,
    async handle(request, response) {
      const url = new URL(request.url ?? "/login", "http://localhost");
      if (request.method === "GET") {
        sendHtml(response, 200, renderLoginPage(safeNext(url.searchParams.get("next"))));
        return;
      }
      const origin = originOf(request, auth);
      const { address } = origin;
      const from = originLogFields(origin);
      const form = new URLSearchParams(await readBody(request));
      const next = safeNext(form.get("next"));
      if (auth.attempts.blocked(address)) {
        logger.warn(from, "web console: login refused, too many failed logins in a minute");
        sendHtml(response, 429, renderLoginPage(next, "Too many failed logins from here: wait a minute."));
        return;
      }
      const login = auth.credentials.match(form.get("token") ?? "");
      if (!login) {
        auth.attempts.failed(address);
        logger.warn(from, "web console: login with a wrong token");
        sendHtml(response, 401, renderLoginPage(next, "That token is not right."));
        return;
      }
      const session = await auth.sessions.open(login);
      response
        .writeHead(303, {
          location: next,
          "set-cookie": `${sessionCookieName}=${session}; ${cookieAttributes(request, origin)}; Max-Age=${sessionLifetimeMs / 1000}`,
          "cache-control": "no-store",
        })
        .end();
      logger.info(
        { ...from, person: login.kind === "person" ? login.name : "(shared token)" },
        "web console: logged in",
      );
    },
  };
}

/** `POST /logout`: ends the stored session (in every process) and clears the cookie. */
export function logoutRoute(auth: WebAuth, logger: Logger): GuardedRoute {
  return {
    path: "/logout",
    kind: "open",
    methods: ["POST"],
    // Its body is never read: the cookie says everything.
    maxBodyBytes: 0,
    async handle(request, response) {
      leaveBodyUnread(request, response);
      const origin = originOf(request, auth);
      const session = cookieValue(request.headers, sessionCookieName);
      if (session !== undefined && session !== "") await auth.sessions.end(session);
      response
        .writeHead(303, {
          location: "/login",
          "set-cookie": `${sessionCookieName}=; ${cookieAttributes(request, origin)}; Max-Age=0`,
          "cache-control": "no-store",
        })
        .end();
      logger.info(originLogFields(origin), "web console: logged out");
    },
  };
}
