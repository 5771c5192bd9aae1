import { createHmac } from "node:crypto";
import { request } from "node:http";
import pino from "pino";
import { startHttpServer, type RunningHttpServer } from "../../src/http/start-http-server.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import type { Roundtable } from "../../src/app/roundtable.js";

/** The service's HTTP server with a Roundtable's trigger routes, as `roundtable start` serves them. */
export async function serveTriggers(roundtable: Roundtable, logger = pino({ level: "silent" })) {
  const server: RunningHttpServer = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    logger,
    metrics: createMetrics(),
    readiness: async () => ({ ok: true, checks: {} }),
    routes: roundtable.triggerRoutes(logger),
  });
  return server;
}

export interface TriggerAnswer {
  status: number;
  body: string;
  json: () => Record<string, unknown>;
}

/** A POST to the server; `chunked` sends the body without a length (read as it comes). */
export function post(
  port: number,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  options: { chunked?: boolean } = {},
): Promise<TriggerAnswer> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes.length) }),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, body: text, json: () => JSON.parse(text) });
        });
        response.on("error", reject);
      },
    );
    // A refused request may be answered (and the socket closed) before the whole body is sent.
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE" || error.code === "ECONNRESET") return;
      reject(error);
    });
    if (options.chunked) {
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
        outgoing.write(bytes.subarray(offset, offset + 64 * 1024));
      outgoing.end();
    } else outgoing.end(bytes);
  });
}

/** `X-Hub-Signature-256` as GitHub computes it. */
export function githubSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
