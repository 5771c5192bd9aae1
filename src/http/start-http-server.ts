import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { errorMessage, RoundtableError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { type Metrics, prometheusContentType } from "../metrics/metrics.js";
import type { WebhookRoute } from "../world/channel-adapter.js";
import { BodyRefusedError, defaultMaxBodyBytes, limitRequestBody } from "./limit-request-body.js";
import { listenAcceptors } from "./listen-acceptors.js";
import type { ReadinessProbe } from "./readiness.js";
import { triggerPathPrefix } from "./trigger-routes.js";

export interface HttpServerOptions {
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  /** Default: every interface. */
  host?: string;
  logger: Logger;
  /** Answers `/readyz`: the database is reachable and channels are connected. */
  readiness: ReadinessProbe;
  metrics: Metrics;
  /** Channels' webhook routes, matched on the exact path. */
  routes: WebhookRoute[];
  /** Bodies above this get 413 (default 1 MiB; a route may set its own, `WebhookRoute.maxBodyBytes`). */
  maxBodyBytes?: number;
  /**
   * How long a body may take once its route reads it, for a route without limits of its own
   * (`WebhookRoute.bodyLimits`): 408 after it (default 30 s). Slack's and the triggers' signed
   * bodies are read from anyone before the signature can be checked.
   */
  bodyTimeoutMs?: number;
  /** When set, `/metrics` answers only requests with `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** How long `close()` lets requests in flight finish before cutting them (default 5 s). */
  closeGraceMs?: number;
}

export interface RunningHttpServer {
  /** The port actually bound. */
  port: number;
  /** Stops accepting, lets requests in flight finish (up to the grace time), closes. */
  close(): Promise<void>;
}

const builtInPaths = ["/healthz", "/readyz", "/metrics"];
/** A webhook's body (small) arrives well within this, or gets 408. */
const defaultBodyTimeoutMs = 30_000;

/**
 * The service's one HTTP port: `/healthz` (the process is up), `/readyz` (database and
 * channels), `/metrics` (Prometheus), and the channels' webhook routes. Anything else is 404.
 * A handler that throws gets a 500 and a log line; a body over the limit gets 413.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const routes = new Map<string, WebhookRoute>();
  for (const route of options.routes) {
    if (builtInPaths.includes(route.path) || routes.has(route.path)) {
      throw new RoundtableError("internal", `HTTP route ${route.path} is registered twice`);
    }
    routes.set(route.path, route);
  }
  const logger = options.logger.child({ component: "http" });
  const requests = options.metrics.counter("roundtable_http_requests_total", "HTTP requests by route and status.");
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? defaultBodyTimeoutMs;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const route = routes.get(path);
    const routeLabel = route || builtInPaths.includes(path) ? path : "unmatched";
    response.on("finish", () => {
      requests.inc({ route: routeLabel, status: response.statusCode });
      logger.debug({ method: request.method, path, status: response.statusCode }, "http request");
    });
    try {
      if (route) {
        const refusal = route.refuseEarly?.(request);
        if (refusal) {
          logger.warn(
            { path, reason: refusal.reason, remote: request.socket.remoteAddress },
            "webhook refused before its body was read",
          );
          // The body is never read: the connection closes after the answer.
          response.setHeader("connection", "close");
          return sendJson(response, refusal.status, { error: refusal.reason });
        }
        // The body is read only when (and if) the route reads it: access is decided first.
        return await route.handle(
          limitRequestBody(
            request,
            route.bodyLimits?.(request) ?? { maxBytes: route.maxBodyBytes ?? maxBodyBytes, timeoutMs: bodyTimeoutMs },
          ),
          response,
        );
      }
      if (!builtInPaths.includes(path)) {
        if (path.startsWith(triggerPathPrefix)) {
          logger.warn({ path, remote: request.socket.remoteAddress }, "trigger request refused: no such trigger");
        }
        return sendJson(response, 404, { error: "not found" });
      }
      if (request.method !== "GET" && request.method !== "HEAD") {
        response.setHeader("allow", "GET, HEAD");
        return sendJson(response, 405, { error: "method not allowed" });
      }
      if (path === "/healthz") return sendJson(response, 200, { status: "ok" });
      if (path === "/readyz") return await sendReadiness(response, options.readiness);
      if (options.metricsToken !== undefined && !hasBearer(request, options.metricsToken)) {
        logger.warn(
          { path, remote: request.socket.remoteAddress },
          "metrics request without the right bearer token refused",
        );
        response.setHeader("www-authenticate", 'Bearer realm="metrics"');
        return sendJson(response, 401, { error: "a bearer token (METRICS_TOKEN) is required" });
      }
      return sendText(response, 200, await options.metrics.render(), prometheusContentType);
    } catch (error) {
      if (error instanceof BodyRefusedError) {
        logger.warn(
          { path, status: error.status, reason: error.message, remote: request.socket.remoteAddress },
          `request refused while its body was read: ${error.message}`,
        );
        if (response.headersSent) response.destroy();
        else {
          // The rest of the body is never read: the connection closes after the answer.
          response.setHeader("connection", "close");
          sendJson(response, error.status, { error: error.message });
        }
        return;
      }
      logger.error({ err: error, method: request.method, path }, "HTTP handler failed");
      if (!response.headersSent) sendJson(response, 500, { error: "internal error" });
      else response.destroy();
    }
  };

  const { servers, port } = await listenAcceptors(
    (request, response) => {
      void handle(request, response);
    },
    options.port,
    options.host,
  );
  logger.info(
    { host: options.host ?? "0.0.0.0", port, routes: [...builtInPaths, ...routes.keys()] },
    "HTTP server listening",
  );

  return {
    port,
    close: async () => {
      await Promise.all(servers.map((server) => closeServer(server, options.closeGraceMs ?? 5000)));
    },
  };
}

/** Whether the request carries `Authorization: Bearer <token>` (compared in constant time). */
function hasBearer(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function sendReadiness(response: ServerResponse, readiness: ReadinessProbe): Promise<void> {
  let report: Awaited<ReturnType<ReadinessProbe>>;
  try {
    report = await readiness();
  } catch (error) {
    report = { ok: false, checks: { readiness: { ok: false, detail: errorMessage(error) } } };
  }
  sendJson(response, report.ok ? 200 : 503, { status: report.ok ? "ready" : "not ready", checks: report.checks });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, `${JSON.stringify(body)}\n`, "application/json; charset=utf-8");
}

function sendText(response: ServerResponse, status: number, body: string, contentType: string): void {
  response.statusCode = status;
  response.setHeader("content-type", contentType);
  response.setHeader("content-length", Buffer.byteLength(body));
  response.setHeader("cache-control", "no-store");
  response.end(body);
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
