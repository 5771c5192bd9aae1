import type { IncomingMessage, ServerResponse } from "node:http";
import { securityHeaders } from "./html.js";

export function send(
  response: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...securityHeaders,
    "content-type": contentType,
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
    ...headers,
  });
  response.end(body);
}

export function sendHtml(response: ServerResponse, status: number, body: string): void {
  send(response, status, body, "text/html; charset=utf-8");
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, `${JSON.stringify(body)}\n`, "application/json; charset=utf-8");
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  send(response, status, `${text}\n`, "text/plain; charset=utf-8");
}

/** The request's query parameter, if given. */
export function queryParameter(request: IncomingMessage, name: string): string | undefined {
  return new URL(request.url ?? "/", "http://localhost").searchParams.get(name) ?? undefined;
}
