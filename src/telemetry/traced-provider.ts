import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ModelProvider, StreamPart } from "../providers/model-provider.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from "./gen-ai-attributes.js";
import { roundtableTracer } from "./turn-trace.js";

/**
 * The same provider, with a `chat <model>` span (GenAI conventions: provider, model, finish
 * reason, token usage) around each model call, from the request to the stream's end.
 */
export function traceProvider(provider: ModelProvider, providerType: string): ModelProvider {
  return {
    name: provider.name,
    stream(request, signal) {
      return tracedStream(provider.stream(request, signal), providerType, request.model);
    },
  };
}

async function* tracedStream(
  parts: AsyncIterable<StreamPart>,
  providerType: string,
  model: string,
): AsyncGenerator<StreamPart> {
  const span = roundtableTracer().startSpan(`${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: providerType,
      [ATTR_GEN_AI_REQUEST_MODEL]: model,
    },
  });
  try {
    for await (const part of parts) {
      if (part.type === "finish") {
        span.setAttributes({
          // The conventions spell reasons with underscores (`tool_calls`, `content_filter`).
          [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [part.response.finishReason.replaceAll("-", "_")],
          [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: part.response.usage.inputTokens,
          [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: part.response.usage.outputTokens,
        });
      }
      yield part;
    }
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : "error");
    throw error;
  } finally {
    span.end();
  }
}
