import type { IncomingMessage, ServerResponse } from "node:http";

/** A request's body as text (the HTTP server has already capped its size). */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A webhook's short answer; a response already begun is only ended. */
export function reply(
  response: ServerResponse,
  status: number,
  body: string,
  type = "text/plain; charset=utf-8",
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { "content-type": type }).end(body);
}
