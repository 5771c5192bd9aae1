import { z } from "zod";
import type { FinishReason, ModelToolCall, StreamPart, Usage } from "../model-provider.js";
import {
  abortedError,
  contentRefusedError,
  malformedError,
  providerErrorFromStatus,
  streamEndedEarlyError,
} from "../provider-error-map.js";
import { ResponseBuilder } from "../response-builder.js";

const itemSchema = z.looseObject({
  type: z.string(),
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  arguments: z.string().nullish(),
});

const responseSchema = z.looseObject({
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  usage: z
    .looseObject({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

/** The Responses stream events we read; other event types are skipped. */
const eventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("response.output_text.delta"), delta: z.string() }),
  z.looseObject({ type: z.literal("response.refusal.delta"), delta: z.string() }),
  z.looseObject({ type: z.literal("response.output_item.added"), output_index: z.number().int(), item: itemSchema }),
  z.looseObject({
    type: z.literal("response.function_call_arguments.delta"),
    output_index: z.number().int(),
    delta: z.string(),
  }),
  z.looseObject({ type: z.literal("response.output_item.done"), output_index: z.number().int(), item: itemSchema }),
  z.looseObject({ type: z.literal("response.completed"), response: responseSchema }),
  z.looseObject({ type: z.literal("response.incomplete"), response: responseSchema }),
  z.looseObject({ type: z.literal("response.failed"), response: responseSchema }),
]);

const readEvents = new Set(eventSchema.options.map((option) => option.shape.type.value as string));

/**
 * Responses API events as stream parts: text deltas as they come, a function call when its
 * `output_item.done` arrives (arguments streamed as deltas before), reasoning items kept raw
 * in `providerFields["openai-responses"].reasoning`. The stream must end in
 * `response.completed` or `response.incomplete`; `response.failed` is an error.
 */
export async function* mapResponsesStream(
  events: AsyncIterable<unknown>,
  provider: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamPart> {
  const builder = new ResponseBuilder();
  const calls = new Map<number, { callId: string; name: string; argumentsJson: string }>();
  const reasoning: Record<string, unknown>[] = [];
  let refusal = "";
  let finish: FinishReason | undefined;
  for await (const raw of events) {
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type === "string" && !readEvents.has(type)) continue;
    const parsed = eventSchema.safeParse(raw);
    if (!parsed.success) throw malformedError(provider, `unexpected event: ${parsed.error.message}`);
    const event = parsed.data;
    switch (event.type) {
      case "response.output_text.delta":
        builder.addText(event.delta);
        yield { type: "text-delta", text: event.delta };
        break;
      case "response.refusal.delta":
        refusal += event.delta;
        break;
      case "response.output_item.added":
        if (event.item.type === "function_call") {
          calls.set(event.output_index, {
            callId: event.item.call_id ?? "",
            name: event.item.name ?? "",
            argumentsJson: event.item.arguments ?? "",
          });
        }
        break;
      case "response.function_call_arguments.delta": {
        const call = calls.get(event.output_index);
        if (call) call.argumentsJson += event.delta;
        break;
      }
      case "response.output_item.done":
        if (event.item.type === "function_call") {
          const pending = calls.get(event.output_index);
          const call: ModelToolCall = {
            id: event.item.call_id ?? pending?.callId ?? "",
            name: event.item.name ?? pending?.name ?? "",
            argumentsJson: event.item.arguments ?? pending?.argumentsJson ?? "{}",
          };
          if (call.id === "" || call.name === "")
            throw malformedError(provider, "a function_call without call_id or name");
          if (call.argumentsJson === "") call.argumentsJson = "{}";
          builder.addToolCall(call);
          yield { type: "tool-call", call };
        } else if (event.item.type === "reasoning") {
          const { status: _status, ...item } = event.item;
          reasoning.push(item);
        }
        break;
      case "response.completed":
      case "response.incomplete":
        builder.setUsage(usageOf(event.response.usage));
        finish = finishOf(event.type, event.response.incomplete_details?.reason);
        break;
      case "response.failed": {
        const error = event.response.error;
        throw providerErrorFromStatus({
          provider,
          status: undefined,
          kinds: error?.code ? [error.code] : [],
          apiMessage: error?.message ?? "response failed",
          cause: raw,
        });
      }
    }
  }
  if (signal?.aborted) throw abortedError(provider);
  if (finish === undefined) throw streamEndedEarlyError(provider, "response.completed");
  if (refusal !== "") finish = "content-filter";
  if (finish === "content-filter" && builder.isEmpty) {
    throw contentRefusedError(provider, `refused${refusal ? `: ${refusal.slice(0, 300)}` : " (content filter)"}`);
  }
  yield { type: "usage", usage: builder.currentUsage };
  yield {
    type: "finish",
    response: builder.build(finish, reasoning.length === 0 ? undefined : { "openai-responses": { reasoning } }),
  };
}

function finishOf(type: "response.completed" | "response.incomplete", reason: string | null | undefined): FinishReason {
  if (type === "response.completed") return "stop";
  if (reason === "max_output_tokens") return "length";
  if (reason === "content_filter") return "content-filter";
  return "other";
}

function usageOf(usage: z.infer<typeof responseSchema>["usage"]): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cachedInputTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
  };
}
