import OpenAI from "openai";
import type { ModelProvider, ModelRequest, StreamPart } from "../model-provider.js";
import { newCallId } from "../new-call-id.js";
import { abortedError, missingKeyError } from "../provider-error-map.js";
import { convertOpenAIRequest } from "./convert-request.js";
import { convertResponsesRequest } from "./convert-responses-request.js";
import { mapOpenAIError } from "./map-error.js";
import { mapResponsesStream } from "./map-responses-stream.js";
import { mapOpenAIStream } from "./map-stream.js";
import { sseChunks } from "./sse-chunks.js";
import { modelStreamFetch } from "../../http/node-http-fetch.js";

export { officialOpenAIBaseUrl } from "../official-base-urls.js";

export interface OpenAIProviderOptions {
  /** The config name (`openai`, `ollama`, `openrouter`, …). */
  name: string;
  /** Undefined: every call fails with `provider.auth` naming the variable to set. */
  apiKey: string | undefined;
  /** Ends in `/v1` (the SDK's convention). */
  baseUrl: string;
  timeoutMs?: number;
  /** `chat` (Chat Completions, the default; what compatible servers speak) or `responses`. */
  api?: "chat" | "responses";
  /** Ids for calls the server gave none. */
  newCallId?: () => string;
}

/**
 * OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, OpenRouter,
 * LiteLLM); or OpenAI's Responses API when configured with `api: responses`.
 */
export class OpenAIProvider implements ModelProvider {
  readonly name: string;
  private readonly client: OpenAI | undefined;
  private readonly official: boolean;
  private readonly api: "chat" | "responses";
  private readonly newCallId: () => string;

  constructor(options: OpenAIProviderOptions) {
    this.name = options.name;
    this.official = new URL(options.baseUrl).hostname === "api.openai.com";
    this.api = options.api ?? "chat";
    this.newCallId = options.newCallId ?? newCallId;
    this.client =
      options.apiKey === undefined
        ? undefined
        : new OpenAI({
            apiKey: options.apiKey,
            baseURL: options.baseUrl,
            maxRetries: 0, // retries live in withRetries, one layer only
            logLevel: "off",
            // Over node:http: sseChunks then reads the stream from the socket, in bursts.
            fetch: modelStreamFetch,
            ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
          });
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    if (signal?.aborted) throw abortedError(this.name);
    if (!this.client) throw missingKeyError(this.name, "OPENAI_API_KEY");
    const options = signal === undefined ? {} : { signal };
    try {
      if (this.api === "responses") {
        const events = await this.client.responses.create(convertResponsesRequest(request), options);
        yield* mapResponsesStream(events, this.name, signal);
        return;
      }
      const body = convertOpenAIRequest(request, {
        maxTokensField: this.official ? "max_completion_tokens" : "max_tokens",
      });
      // The raw response, read by sseChunks (the SDK's stream reader costs several times as much a token).
      const response = await this.client.chat.completions.create(body, options).asResponse();
      yield* mapOpenAIStream(sseChunks(response, signal), this.name, signal, this.newCallId);
    } catch (error: unknown) {
      throw mapOpenAIError(error, this.name, signal, request.model);
    }
  }
}
