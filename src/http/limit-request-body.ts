import { IncomingMessage } from "node:http";
import { RoundtableError } from "../errors/roundtable-error.js";
import { type RequestBodyLimits, requestHasBody } from "../world/channel-adapter.js";

/** The default cap on a request body (webhooks are small). */
export const defaultMaxBodyBytes = 1024 * 1024;

/**
 * A request body refused while it was being read: over its cap (413), too slow (408) or past
 * the client's bytes in flight (429). The HTTP server answers with `status` and closes the
 * connection, so the rest of the body is never read.
 */
export class BodyRefusedError extends RoundtableError {
  readonly status: 408 | 413 | 429;
  constructor(status: 408 | 413 | 429, message: string) {
    super("http.body-refused", message);
    this.status = status;
  }
}

/**
 * The request to hand to a route: nothing of its body is read until the route reads it (so a
 * route decides access from the headers first, and a refused request's body is never read),
 * and it is read as a stream that fails with a `BodyRefusedError` the moment the cap, the time
 * limit or `admit` is passed, for a declared `content-length` at the first read and for a
 * chunked body at the chunk that crosses it. Nothing is buffered here.
 */
export function limitRequestBody(request: IncomingMessage, limits: RequestBodyLimits): IncomingMessage {
  if (!requestHasBody(request)) return request;
  const { maxBytes } = limits;
  const guarded = new IncomingMessage(request.socket);
  guarded.method = request.method ?? "GET";
  guarded.url = request.url ?? "/";
  guarded.httpVersion = request.httpVersion;
  guarded.httpVersionMajor = request.httpVersionMajor;
  guarded.httpVersionMinor = request.httpVersionMinor;
  guarded.headers = request.headers;
  guarded.rawHeaders = request.rawHeaders;

  let size = 0;
  let started = false;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (error?: Error, destroying = false): void => {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    request.off("data", onData);
    request.off("end", onEnd);
    request.off("error", onError);
    request.pause();
    limits.release?.(size);
    if (destroying) return;
    if (error) guarded.destroy(error);
    else {
      guarded.complete = true;
      guarded.push(null);
    }
  };
  const onData = (chunk: Buffer): void => {
    if (finished) return;
    if (size + chunk.length > maxBytes) {
      finish(new BodyRefusedError(413, `request body larger than ${maxBytes} bytes`));
      return;
    }
    const refusal = limits.admit?.(chunk.length);
    if (refusal) {
      finish(new BodyRefusedError(refusal.status, refusal.reason));
      return;
    }
    size += chunk.length;
    if (!guarded.push(chunk)) request.pause();
  };
  const onEnd = (): void => finish();
  const onError = (error: Error): void => finish(error);

  // Paused before listening, so adding the listener reads nothing yet.
  request.pause();
  request.on("data", onData);
  request.on("end", onEnd);
  request.on("error", onError);
  guarded._read = () => {
    if (finished) return;
    if (!started) {
      started = true;
      const declared = request.headers["content-length"];
      if (declared !== undefined && Number(declared) > maxBytes) {
        finish(new BodyRefusedError(413, `request body larger than ${maxBytes} bytes`));
        return;
      }
      if (limits.timeoutMs !== undefined) {
        timer = setTimeout(
          () => finish(new BodyRefusedError(408, `request body not received within ${limits.timeoutMs} ms`)),
          limits.timeoutMs,
        );
        timer.unref();
      }
    }
    request.resume();
  };
  // Destroying the guard must not destroy the socket: the server still answers on it.
  guarded._destroy = (error, callback) => {
    finish(undefined, true);
    callback(error);
  };
  return guarded;
}
