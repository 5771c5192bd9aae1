import { IncomingMessage } from "node:http";

/** The default cap on a request body (webhooks are small). */
export const defaultMaxBodyBytes = 1024 * 1024;

/**
 * Enforces a body size limit without taking the body away from the handler. A declared
 * `content-length` is checked up front; a chunked body (no length) is read up to the limit and
 * handed on as a fresh request carrying the same method, URL, headers and bytes.
 * Resolves with the request to hand on, or `"too-large"`.
 */
export async function limitRequestBody(
  request: IncomingMessage,
  maxBytes: number,
): Promise<IncomingMessage | "too-large"> {
  const declared = request.headers["content-length"];
  if (declared !== undefined) return Number(declared) > maxBytes ? "too-large" : request;
  if (request.headers["transfer-encoding"] === undefined) return request;

  const chunks: Buffer[] = [];
  let size = 0;
  const complete = await new Promise<boolean>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        request.pause();
        resolve(false);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(true);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
  });
  if (!complete) return "too-large";
  return replayRequest(request, Buffer.concat(chunks));
}

/** A request that reads `body` as its stream, with the original's method, URL and headers. */
function replayRequest(original: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = new IncomingMessage(original.socket);
  replay.method = original.method ?? "GET";
  replay.url = original.url ?? "/";
  replay.httpVersion = original.httpVersion;
  replay.httpVersionMajor = original.httpVersionMajor;
  replay.httpVersionMinor = original.httpVersionMinor;
  const headers = { ...original.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  replay.headers = headers;
  replay.rawHeaders = Object.entries(headers).flatMap(([name, value]) =>
    Array.isArray(value) ? value.flatMap((item) => [name, item]) : value === undefined ? [] : [name, value],
  );
  replay.complete = true;
  if (body.length > 0) replay.push(body);
  replay.push(null);
  return replay;
}
