import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { combineReadinessChecks, type ReadinessReport } from "../../src/http/readiness.js";
import { type RunningHttpServer, startHttpServer } from "../../src/http/start-http-server.js";
import { createLogger } from "../../src/log/logger.js";
import { createMetrics, type Metrics } from "../../src/metrics/metrics.js";
import type { WebhookRoute } from "../../src/world/channel-adapter.js";
import { SlackHttpReceiver } from "../../channels/slack/http-receiver.js";
import { UploadAllowance } from "../../channels/web/upload-allowance.js";
import { waitUntil } from "../tools/wait-until.js";

interface LogLine {
  level: number;
  msg: string;
  path?: string;
  err?: { message: string };
}

let server: RunningHttpServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** A webhook route that echoes what it received. */
const echoRoute: WebhookRoute = {
  path: "/telegram/webhook",
  async handle(request, response) {
    const body = await readBody(request);
    response.setHeader("content-type", "application/json");
    response.end(
      JSON.stringify({ method: request.method, body, length: request.headers["content-length"], url: request.url }),
    );
  },
};

const throwingRoute: WebhookRoute = {
  path: "/slack/events",
  async handle() {
    throw new Error("handler exploded");
  },
};

async function start(
  options: {
    readiness?: () => Promise<ReadinessReport>;
    routes?: WebhookRoute[];
    maxBodyBytes?: number;
    metricsToken?: string;
    bodyTimeoutMs?: number;
  } = {},
): Promise<{ base: string; logs: LogLine[]; metrics: Metrics }> {
  const logs: LogLine[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => logs.push(JSON.parse(line) as LogLine) },
  });
  const metrics = createMetrics();
  server = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    logger,
    metrics,
    readiness: options.readiness ?? (async () => ({ ok: true, checks: { database: { ok: true } } })),
    routes: options.routes ?? [echoRoute, throwingRoute],
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
    ...(options.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: options.bodyTimeoutMs }),
  });
  return { base: `http://127.0.0.1:${server.port}`, logs, metrics };
}

/** Sends a chunked body (no content-length) with node:http. */
function postChunked(base: string, path: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method: "POST" }, (response) => {
      readBody(response).then((body) => resolve({ status: response.statusCode ?? 0, body }), reject);
    });
    request.on("error", reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe("HTTP server", () => {
  it("/healthz answers ok while the process is up", async () => {
    const { base } = await start();
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("/readyz is 200 when every check is ok and 503 naming what is not", async () => {
    let databaseUp = true;
    const { base } = await start({
      readiness: () =>
        combineReadinessChecks({
          database: () => (databaseUp ? { ok: true } : { ok: false, detail: "connection refused" }),
          telegram: () => ({ ok: true }),
        }),
    });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: { ok: true }, telegram: { ok: true } } });
    databaseUp = false;
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: "not ready",
      checks: { database: { ok: false, detail: "connection refused" }, telegram: { ok: true } },
    });
  });

  it("/readyz is 503 when the probe itself throws", async () => {
    const { base } = await start({
      readiness: async () => {
        throw new Error("probe broke");
      },
    });
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: "not ready",
      checks: { readiness: { ok: false, detail: "probe broke" } },
    });
  });

  it("/metrics renders the registry, including the server's own request counter", async () => {
    const { base, metrics } = await start();
    metrics.counter("roundtable_messages_total", "Messages.").inc({ platform: "telegram" });
    await fetch(`${base}/healthz`);
    await fetch(`${base}/nowhere`);
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    expect(text).toContain('roundtable_messages_total{platform="telegram"} 1\n');
    expect(text).toContain('roundtable_http_requests_total{route="/healthz",status="200"} 1\n');
    expect(text).toContain('roundtable_http_requests_total{route="unmatched",status="404"} 1\n');
  });

  it("webhook routes match the exact path (query strings aside)", async () => {
    const { base } = await start();
    const response = await fetch(`${base}/telegram/webhook?from=test`, { method: "POST", body: '{"update_id":1}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      method: "POST",
      body: '{"update_id":1}',
      length: "15",
      url: "/telegram/webhook?from=test",
    });
    expect((await fetch(`${base}/telegram/webhook/extra`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/telegram`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("anything else is 404, and built-in paths take only GET and HEAD", async () => {
    const { base } = await start();
    const missing = await fetch(`${base}/`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "not found" });
    const post = await fetch(`${base}/healthz`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(`${base}/healthz`, { method: "HEAD" })).status).toBe(200);
  });

  it("a handler that throws gets 500 with a short body and a log line", async () => {
    const { base, logs } = await start();
    const response = await fetch(`${base}/slack/events`, { method: "POST", body: "{}" });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"internal error"}\n');
    const line = logs.find((entry) => entry.msg === "HTTP handler failed");
    expect(line).toMatchObject({ level: 50, path: "/slack/events", err: { message: "handler exploded" } });
  });

  it("a body over the limit gets 413 when the handler reads it; the handler's own answer never goes out", async () => {
    let answered = false;
    const route: WebhookRoute = {
      path: "/hook",
      async handle(request, response) {
        for await (const _chunk of request) {
          // read the body as any handler does
        }
        answered = true;
        response.end("handled");
      },
    };
    const { base } = await start({ routes: [route], maxBodyBytes: 64 });
    const response = await fetch(`${base}/hook`, { method: "POST", body: "x".repeat(65) });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({ error: "request body larger than 64 bytes" });
    expect(answered).toBe(false);
    expect((await fetch(`${base}/hook`, { method: "POST", body: "x".repeat(64) })).status).toBe(200);
  });

  it("a route with its own body limit (uploads) takes more than the server's; the others keep the server's", async () => {
    const echo = (path: string, maxBodyBytes?: number): WebhookRoute => ({
      path,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      async handle(request, response) {
        let length = 0;
        for await (const chunk of request) length += (chunk as Buffer).length;
        response.end(String(length));
      },
    });
    const { base } = await start({ routes: [echo("/upload", 256), echo("/hook")], maxBodyBytes: 64 });
    const upload = await fetch(`${base}/upload`, { method: "POST", body: "x".repeat(200) });
    expect(upload.status).toBe(200);
    expect(await upload.text()).toBe("200");
    expect((await fetch(`${base}/upload`, { method: "POST", body: "x".repeat(257) })).status).toBe(413);
    expect((await fetch(`${base}/hook`, { method: "POST", body: "x".repeat(65) })).status).toBe(413);
  });

  it("a chunked body under the limit reaches the handler whole", async () => {
    const { base } = await start({ maxBodyBytes: 64 });
    const response = await postChunked(base, "/telegram/webhook", ['{"a":', '"b"', "}"]);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ body: '{"a":"b"}' });
  });

  it("a chunked body over the limit gets 413", async () => {
    const { base } = await start({ maxBodyBytes: 64 });
    const response = await postChunked(base, "/telegram/webhook", ["x".repeat(40), "y".repeat(40)]);
    expect(response.status).toBe(413);
  });

  it("refuses a route registered twice or on a built-in path", async () => {
    const logger = createLogger({ destination: { write: () => undefined } });
    const base = {
      port: 0,
      host: "127.0.0.1",
      logger,
      metrics: createMetrics(),
      readiness: async () => ({ ok: true, checks: {} }),
    };
    await expect(startHttpServer({ ...base, routes: [echoRoute, echoRoute] })).rejects.toThrow(
      "HTTP route /telegram/webhook is registered twice",
    );
    await expect(startHttpServer({ ...base, routes: [{ ...echoRoute, path: "/metrics" }] })).rejects.toThrow(
      "HTTP route /metrics is registered twice",
    );
  });

  it("reports a port that is taken", async () => {
    await start();
    const taken = server?.port ?? 0;
    const logger = createLogger({ destination: { write: () => undefined } });
    await expect(
      startHttpServer({
        port: taken,
        host: "127.0.0.1",
        logger,
        metrics: createMetrics(),
        readiness: async () => ({ ok: true, checks: {} }),
        routes: [],
      }),
    ).rejects.toThrow(`cannot listen on port ${taken}`);
  });

  it("close() ends with idle keep-alive connections open, and the port stops answering", async () => {
    const { base } = await start();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await server?.close();
    server = undefined;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});

describe("METRICS_TOKEN", () => {
  it("with a token, /metrics needs it as a bearer token; health stays open", async () => {
    const { base, logs } = await start({ metricsToken: "metrics-secret-1234" });
    const bare = await fetch(`${base}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer metrics-secret-1234" } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("roundtable_http_requests_total");
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(logs.some((line) => line.msg === "metrics request without the right bearer token refused")).toBe(true);
  });

  it("without a token, /metrics is open", async () => {
    const { base } = await start();
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });
});

describe("webhook secrets before the body", () => {
  it("a route's header check refuses at once, without reading a body that never ends", async () => {
    let handled = false;
    const guarded: WebhookRoute = {
      path: "/telegram/webhook",
      refuseEarly: (request) =>
        request.headers["x-telegram-bot-api-secret-token"] === "right"
          ? undefined
          : { status: 401, reason: "wrong secret token" },
      async handle(request, response) {
        handled = true;
        await readBody(request);
        response.end("ok");
      },
    };
    const { base, logs } = await start({ routes: [guarded] });
    // A chunked body that is never finished: reading it first would wait forever.
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${base}/telegram/webhook`, {
        method: "POST",
        headers: { "x-telegram-bot-api-secret-token": "wrong", "transfer-encoding": "chunked" },
      });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on("error", reject);
      request.write('{"update_id": 1,');
    });
    expect(status).toBe(401);
    expect(handled).toBe(false);
    expect(logs.some((line) => line.msg === "webhook refused before its body was read")).toBe(true);

    const accepted = await fetch(`${base}/telegram/webhook`, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": "right" },
      body: "{}",
    });
    expect(accepted.status).toBe(200);
    expect(handled).toBe(true);
  });
});

describe("a route's streamed body limits (uploads)", () => {
  /** A chunked POST that sends `first` and then waits (the body never ends unless `rest` is given). */
  function openUpload(base: string, first: string) {
    let status = 0;
    const request = httpRequest(`${base}/upload`, { method: "POST", headers: { "transfer-encoding": "chunked" } });
    const answered = new Promise<number>((resolve) => {
      request.on("response", (response) => {
        response.resume();
        status = response.statusCode ?? 0;
        resolve(status);
      });
      request.on("error", () => resolve(status));
    });
    request.write(first);
    return { request, answered };
  }

  it("a client past its bytes in flight gets 429; a body that stalls past the time limit gets 408", async () => {
    const allowance = new UploadAllowance(1000, 1500, 60_000);
    const slow = new UploadAllowance(1000, 1500, 50);
    const route = (path: string, uploads: UploadAllowance): WebhookRoute => ({
      path,
      maxBodyBytes: 1000,
      bodyLimits: (request) => uploads.limitsFor(request.socket.remoteAddress ?? ""),
      async handle(request, response) {
        for await (const _chunk of request) {
          // read as the upload route does
        }
        response.end("taken");
      },
    });
    const { base, logs } = await start({ routes: [route("/upload", allowance), route("/stall", slow)] });
    const first = openUpload(base, "x".repeat(900));
    await waitUntil("the first upload's bytes are taken", () => allowance.bytesInFlight("127.0.0.1") === 900);
    const second = openUpload(base, "y".repeat(900));
    expect(await second.answered).toBe(429);
    first.request.end();
    expect(await first.answered).toBe(200);
    expect(allowance.bytesInFlight("127.0.0.1")).toBe(0);

    const stalled = await new Promise<number>((resolve) => {
      const request = httpRequest(`${base}/stall`, { method: "POST", headers: { "transfer-encoding": "chunked" } });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.write("z".repeat(10));
    });
    expect(stalled).toBe(408);
    expect(slow.bytesInFlight("127.0.0.1")).toBe(0);
    expect(logs.some((line) => line.msg.includes("too many upload bytes in flight"))).toBe(true);
  });

  it("a webhook body (read before any signature can be checked) that stalls gets 408 at the server's time limit", async () => {
    // Slack's and the triggers' HMAC routes read the body of anyone: it must not be held for minutes.
    const { base, logs } = await start({ routes: [echoRoute], bodyTimeoutMs: 50 });
    const stalled = await new Promise<number>((resolve) => {
      const request = httpRequest(`${base}/telegram/webhook`, {
        method: "POST",
        headers: { "transfer-encoding": "chunked" },
      });
      request.on("error", () => undefined);
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.write("z".repeat(10));
    });
    expect(stalled).toBe(408);
    expect(logs.some((line) => line.msg.includes("request body not received within 50 ms"))).toBe(true);
  });

  it("Slack's route answers 401 before reading the body of a request whose signature headers cannot be Slack's", async () => {
    const receiver = new SlackHttpReceiver({
      signingSecret: "slack-signing-secret",
      logger: createLogger({ level: "silent" }),
      isReady: () => true,
      track: () => undefined,
    });
    const { base, logs } = await start({ routes: [receiver.route()] });
    const now = Math.floor(Date.now() / 1000);
    const answers: number[] = [];
    for (const headers of [
      {},
      { "x-slack-request-timestamp": String(now), "x-slack-signature": "v0=forged" },
      { "x-slack-request-timestamp": String(now - 3600), "x-slack-signature": `v0=${"0".repeat(64)}` },
    ]) {
      // The body never ends: only an answer given before it is read arrives.
      answers.push(
        await new Promise<number>((resolve) => {
          const request = httpRequest(`${base}/slack/events`, {
            method: "POST",
            headers: { ...headers, "transfer-encoding": "chunked", "content-type": "application/json" },
          });
          request.on("error", () => undefined);
          request.on("response", (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
            request.destroy();
          });
          request.write(`{"type":"event_callback","pad":"${"x".repeat(1000)}`);
        }),
      );
    }
    expect(answers).toEqual([401, 401, 401]);
    expect(logs.filter((line) => line.msg === "webhook refused before its body was read")).toHaveLength(3);
  });
});
