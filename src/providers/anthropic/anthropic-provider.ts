import Anthropic from "@anthropic-ai/sdk";
import type { ModelProvider, ModelRequest, StreamPart } from "../model-provider.js";
import { modelLimits } from "../model-limits.js";
import { abortedError, missingKeyError } from "../provider-error-map.js";
import { anthropicEvents } from "./anthropic-events.js";
import { convertAnthropicRequest } from "./convert-request.js";
import { mapAnthropicError } from "./map-error.js";
import { mapAnthropicStream } from "./map-stream.js";
import { modelStreamFetch } from "../../http/node-http-fetch.js";

export { officialAnthropicBaseUrl } from "../official-base-urls.js";

export interface AnthropicProviderOptions {
  name: string;
  /** Undefined: every call fails with `provider.auth` naming the variable to set. */
  apiKey: string | undefined;
  /** The bare origin; the SDK adds `/v1/messages`. */
  baseUrl: string;
  timeoutMs?: number;
}

/** Anthropic Messages API, streaming, with prompt caching on the system prompt and tools. */
export class AnthropicProvider implements ModelProvider {
  readonly name: string;
  private readonly client: Anthropic | undefined;

  constructor(options: AnthropicProviderOptions) {
    this.name = options.name;
    // The key is always passed: without one the SDK would go looking through a credential chain.
    this.client =
      options.apiKey === undefined
        ? undefined
        : new Anthropic({
            apiKey: options.apiKey,
            baseURL: options.baseUrl,
            maxRetries: 0, // retries live in withRetries, one layer only
            logLevel: "off",
            // Over node:http, the stream read in bursts (docs/performance.md).
            fetch: modelStreamFetch,
            ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
          });
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    if (signal?.aborted) throw abortedError(this.name);
    if (!this.client) throw missingKeyError(this.name, "ANTHROPIC_API_KEY");
    // Anthropic requires max_tokens; without an agent setting, the model's known output limit.
    const maxTokens = request.maxOutputTokens ?? modelLimits(request.model).maxOutputTokens;
    const body = convertAnthropicRequest(request, maxTokens);
    try {
      // The raw response, its events read by anthropicEvents (not the SDK's Stream): docs/performance.md.
      const response = await this.client.messages.create(body, signal === undefined ? {} : { signal }).asResponse();
      yield* mapAnthropicStream(anthropicEvents(response, signal), this.name, signal);
    } catch (error: unknown) {
      throw mapAnthropicError(error, this.name, signal, request.model);
    }
  }
}
