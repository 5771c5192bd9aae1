import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../src/log/logger.js";
import { type RequestBodyLimits, requestHasBody, type WebhookRoute } from "../../src/world/channel-adapter.js";
import { type AccessDecision, checkCrossSite, decideAccess, type WebAuth } from "./access.js";
import { sendHtml, sendText } from "./http-io.js";
import { renderLoginPage } from "./login-page.js";
import { safeNext } from "./safe-next.js";
import { originLogFields } from "./trusted-proxies.js";

/**
 * How a route is protected: `page` shows the login form to a request without a login, `api`
 * answers 401, `open` (the login form, logout and the static files they need) is served to
 * anyone. Every POST also passes the cross-site check.
 */
export type RouteKind = "page" | "api" | "open";

export interface GuardedRoute {
  path: string;
  kind: RouteKind;
  methods: readonly ("GET" | "POST")[];
  /** The route's own body cap (uploads, the login form), instead of the HTTP server's. */
  maxBodyBytes?: number;
  /** The route's own limits while a request's body is read (an upload's time and per-client caps). */
  bodyLimits?(request: IncomingMessage): RequestBodyLimits;
  handle(request: IncomingMessage, response: ServerResponse, access: AccessDecision): Promise<void>;
}

/**
 * Answers a refused request without reading its body: a request that carries one gets
 * `connection: close`, so the server closes the socket after the answer instead of reading
 * (or buffering) what an unknown client sends.
 */
export function leaveBodyUnread(request: IncomingMessage, response: ServerResponse): void {
  if (requestHasBody(request)) response.setHeader("connection", "close");
}

/** A route with access control and cross-site protection in front of it (see `access.ts`). */
export function guardRoute(route: GuardedRoute, auth: WebAuth, logger: Logger): WebhookRoute {
  return {
    path: route.path,
    ...(route.maxBodyBytes === undefined ? {} : { maxBodyBytes: route.maxBodyBytes }),
    ...(route.bodyLimits === undefined ? {} : { bodyLimits: route.bodyLimits }),
    async handle(request, response) {
      const method = request.method ?? "GET";
      if (!(route.methods as readonly string[]).includes(method)) {
        leaveBodyUnread(request, response);
        response.setHeader("allow", route.methods.join(", "));
        sendText(response, 405, `method not allowed: use ${route.methods.join(" or ")}`);
        return;
      }
      const remoteAddress = request.socket.remoteAddress;
      const from = originLogFields(auth.proxies.originOf({ remoteAddress, headers: request.headers }));
      // Open routes (the login form, logout, static files) need no login: no session lookup for them.
      const access: AccessDecision =
        route.kind === "open"
          ? { outcome: "login", reason: "open route" }
          : await decideAccess({ remoteAddress, headers: request.headers }, auth);
      if (access.outcome === "throttled") {
        leaveBodyUnread(request, response);
        logger.warn({ path: route.path, ...from }, `web console refused: ${access.reason}`);
        sendText(response, 429, `refused: ${access.reason}`);
        return;
      }
      if (access.outcome === "login" && route.kind !== "open") {
        leaveBodyUnread(request, response);
        logger.info({ path: route.path, ...from }, `web console: login required (${access.reason})`);
        if (route.kind === "page" && method === "GET")
          sendHtml(response, 401, renderLoginPage(safeNext(request.url ?? "/")));
        else sendText(response, 401, "login required: log in at /login or send Authorization: Bearer <token>");
        return;
      }
      if (method === "POST") {
        const crossSite = checkCrossSite(request.headers, access);
        if (!crossSite.ok) {
          leaveBodyUnread(request, response);
          logger.warn({ path: route.path, ...from }, `web console refused a cross-site request: ${crossSite.reason}`);
          sendText(response, 403, `forbidden: cross-site request refused (${crossSite.reason})`);
          return;
        }
      }
      await route.handle(request, response, access);
    },
  };
}
