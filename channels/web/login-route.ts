import type { Logger } from "../../src/log/logger.js";
import { sessionCookieName, sessionCookieValue } from "./access.js";
import type { GuardedRoute } from "./guard.js";
import { readBody, sendHtml } from "./http-io.js";
import { renderLoginPage } from "./login-page.js";

/** Only a path on this site: never a redirect elsewhere. */
function safeNext(next: string | null | undefined): string {
  return next?.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

/**
 * `/login`: the form, and its POST that checks the token and sets the session cookie
 * (HttpOnly, SameSite=Strict; Secure when the request came over HTTPS through a proxy).
 */
export function loginRoute(token: string | undefined, logger: Logger): GuardedRoute {
  return {
    path: "/login",
    kind: "open",
    methods: ["GET", "POST"],
    async handle(request, response) {
      const url = new URL(request.url ?? "/login", "http://localhost");
      if (token === undefined || token === "") {
        // No token: the guard has already let only this machine in; there is nothing to log into.
        response.writeHead(303, { location: safeNext(url.searchParams.get("next")) }).end();
        return;
      }
      if (request.method === "GET") {
        sendHtml(response, 200, renderLoginPage(safeNext(url.searchParams.get("next"))));
        return;
      }
      const form = new URLSearchParams(await readBody(request));
      const next = safeNext(form.get("next"));
      if (form.get("token") !== token) {
        logger.warn({ remoteAddress: request.socket.remoteAddress }, "web console: login with a wrong token");
        sendHtml(response, 401, renderLoginPage(next, "That token is not right."));
        return;
      }
      const secure = request.headers["x-forwarded-proto"] === "https" ? "; Secure" : "";
      response
        .writeHead(303, {
          location: next,
          "set-cookie": `${sessionCookieName}=${sessionCookieValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000${secure}`,
          "cache-control": "no-store",
        })
        .end();
      logger.info({ remoteAddress: request.socket.remoteAddress }, "web console: logged in");
    },
  };
}
