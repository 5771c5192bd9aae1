import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { ApiClientOptions } from "grammy";

/** What grammY passes to its `fetch` (node-fetch's options; only these are read here). */
interface GrammyFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | NodeJS.ReadableStream;
  agent?: HttpAgent;
  signal?: { aborted: boolean; addEventListener(type: "abort", listener: () => void): void };
}

/**
 * The keep-alive pools of this process's Bot API calls, in place of grammY's (Node's defaults),
 * which keep no more than 256 idle connections: with hundreds of answers streaming at once (a
 * draft or an edit a second each) the surplus was closed after every call and opened again for
 * the next, a TCP handshake a call on both sides (docs/performance.md, "Real model speeds").
 */
const pools = {
  http: new HttpAgent({ keepAlive: true, maxFreeSockets: 4096 }),
  https: new HttpsAgent({ keepAlive: true, maxFreeSockets: 4096 }),
};

/** Longest piece of a body not in the Bot API's shape quoted in the error's description. */
const quotedBodyChars = 200;

/**
 * The HTTP transport grammY uses for every Bot API call (`client.fetch`), on `node:http` with
 * the keep-alive pools above (grammY's `agent` is not used). grammY reads only
 * `response.json()`; here an answer that is not in the Bot API's shape (`{ ok: true, result }`
 * or `{ ok: false, error_code, description }`) is turned into a refusal in that shape carrying
 * the HTTP status: a proxy's bare `502 Bad Gateway` page, an empty body or `{"error": …}`
 * becomes `error_code` 502 (or the status, when it is an error status) with a description
 * naming the status and quoting the body. So the retry transformer retries a bare 5xx like any
 * other, and logs say what came back instead of `undefined undefined`.
 */
export function botApiFetch(): NonNullable<ApiClientOptions["fetch"]> {
  const fetchOnce = (url: string, init: GrammyFetchInit = {}): Promise<{ json(): Promise<unknown> }> =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const https = target.protocol === "https:";
      const send = https ? httpsRequest : httpRequest;
      const request = send(
        target,
        { method: init.method ?? "GET", headers: init.headers ?? {}, agent: https ? pools.https : pools.http },
        (response) => {
          readBody(response).then((text) => {
            const answer = toBotApiShape(response.statusCode ?? 0, response.statusMessage ?? "", text);
            resolve({ json: async () => answer });
          }, reject);
        },
      );
      // Like node-fetch (grammY's default), the failure names the request (the logger redacts the token).
      request.on("error", (error: Error & { code?: string }) => {
        if (error.name === "AbortError") return reject(error);
        reject(
          Object.assign(new Error(`request to ${url} failed, reason: ${error.message}`, { cause: error }), {
            name: "FetchError",
            ...(error.code === undefined ? {} : { code: error.code }),
          }),
        );
      });
      const signal = init.signal;
      if (signal) {
        const abort = (): void => {
          request.destroy(Object.assign(new Error("The operation was aborted."), { name: "AbortError" }));
        };
        if (signal.aborted) abort();
        else signal.addEventListener("abort", abort);
      }
      const body = init.body;
      if (body === undefined) request.end();
      else if (typeof body === "string") request.end(body);
      else {
        body.on("error", (error: Error) => request.destroy(error));
        body.pipe(request);
      }
    });
  return fetchOnce as unknown as NonNullable<ApiClientOptions["fetch"]>;
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.on("error", reject);
    response.on("aborted", () => reject(new Error("the Bot API's answer was cut off")));
  });
}

/** The parsed answer when it is in the Bot API's shape; else a refusal in that shape saying what came. */
function toBotApiShape(status: number, statusText: string, text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isBotApiAnswer(parsed)) return parsed;
  const quoted = text.trim().replace(/\s+/g, " ").slice(0, quotedBodyChars);
  return {
    ok: false,
    // An answer the Bot API never gives, from something between us and it: a bad gateway.
    error_code: status >= 400 ? status : 502,
    description: `HTTP ${status}${statusText === "" ? "" : ` ${statusText}`}, not a Bot API answer: ${
      quoted === "" ? "empty body" : quoted
    }`,
  };
}

function isBotApiAnswer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const answer = value as Record<string, unknown>;
  if (answer.ok === true) return "result" in answer;
  return answer.ok === false && typeof answer.error_code === "number" && typeof answer.description === "string";
}
