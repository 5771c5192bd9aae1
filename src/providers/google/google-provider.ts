import { randomBytes } from "node:crypto";
import { GoogleGenAI } from "@google/genai";
import { modelStreamFetch } from "../../http/node-http-fetch.js";
import type { ModelProvider, ModelRequest, StreamPart } from "../model-provider.js";
import { abortedError, missingKeyError } from "../provider-error-map.js";
import { convertGoogleRequest, generatedIdPrefix } from "./convert-request.js";
import { geminiChunks } from "./gemini-chunks.js";
import { mapGoogleError, type ResponseHeadersSeen } from "./map-error.js";
import { mapGoogleStream } from "./map-stream.js";

export { officialGeminiBaseUrl } from "../official-base-urls.js";

export interface GoogleProviderOptions {
  name: string;
  /** Undefined: every call fails with `provider.auth` naming the variable to set. */
  apiKey: string | undefined;
  /** The bare origin; the SDK adds `/v1beta/models/…`. */
  baseUrl: string;
  timeoutMs?: number;
  /** Ids for calls Gemini gave none; must start with `gemini_call_`. */
  newCallId?: () => string;
}

/** A call id of ours for Gemini, recognisable so it is never sent back as Gemini's own. */
export function newGeminiCallId(): string {
  return `${generatedIdPrefix}${randomBytes(12).toString("base64url")}`;
}

/** Gemini (Developer API) through @google/genai `generateContentStream`. */
export class GoogleProvider implements ModelProvider {
  readonly name: string;
  private readonly client: GoogleGenAI | undefined;
  private readonly newCallId: () => string;

  constructor(options: GoogleProviderOptions) {
    this.name = options.name;
    this.newCallId = options.newCallId ?? newGeminiCallId;
    this.client =
      options.apiKey === undefined
        ? undefined
        : new GoogleGenAI({
            apiKey: options.apiKey,
            // No retryOptions: the SDK then makes one attempt; retries live in withRetries.
            // No SDK timeout either: it would stay armed while the answer streams; ours (in
            // the fetch below) covers the wait for the response headers, as the other SDKs do.
            httpOptions: { baseUrl: options.baseUrl },
          });
    this.timeoutMs = options.timeoutMs;
  }

  private readonly timeoutMs: number | undefined;

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    if (signal?.aborted) throw abortedError(this.name);
    if (!this.client) throw missingKeyError(this.name, "GEMINI_API_KEY");
    const params = convertGoogleRequest(request);
    // The SDK's ApiError drops the response headers; keep them to read `Retry-After`.
    const seen: ResponseHeadersSeen = { model: request.model };
    const timeoutMs = this.timeoutMs;
    // A stream's body is read by `geminiChunks`; the SDK is handed an empty one in its place.
    let streamed: Response | undefined;
    const fetchKeepingHeaders: typeof fetch = async (input, init) => {
      const controller = new AbortController();
      const outer = init?.signal;
      if (outer?.aborted) controller.abort(outer.reason);
      else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => controller.abort(new DOMException(`no response within ${timeoutMs} ms`, "TimeoutError")),
              timeoutMs,
            );
      try {
        const response = await modelStreamFetch(input, { ...init, signal: controller.signal });
        seen.headers = response.headers;
        if (!response.ok || !response.body || !isEventStream(response.headers)) return response;
        streamed = response;
        return new Response("", {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      } finally {
        clearTimeout(timer);
      }
    };
    try {
      const chunks = await this.client.models.generateContentStream({
        ...params,
        config: {
          ...params.config,
          httpOptions: { fetch: fetchKeepingHeaders },
          ...(signal === undefined ? {} : { abortSignal: signal }),
        },
      });
      yield* mapGoogleStream(streamed ? geminiChunks(streamed, signal) : chunks, this.name, signal, this.newCallId);
    } catch (error: unknown) {
      throw mapGoogleError(error, this.name, signal, seen);
    }
  }
}

function isEventStream(headers: Headers): boolean {
  return headers.get("content-type")?.toLowerCase().startsWith("text/event-stream") === true;
}
