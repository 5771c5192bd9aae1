import { z } from "zod";
import type { StreamPart, Usage } from "../model-provider.js";
import { abortedError, contentRefusedError, malformedError, streamEndedEarlyError } from "../provider-error-map.js";
import { ResponseBuilder } from "../response-builder.js";
import { mapAnthropicFinishReason } from "./map-finish-reason.js";

const usageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

/** The stream events we read, checked at the boundary; unknown event types are skipped. */
const eventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message_start"), message: z.looseObject({ usage: usageSchema.nullish() }) }),
  z.looseObject({
    type: z.literal("content_block_start"),
    index: z.number().int(),
    content_block: z.looseObject({ type: z.string(), id: z.string().optional(), name: z.string().optional() }),
  }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.number().int(),
    delta: z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      partial_json: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
    }),
  }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number().int() }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: usageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal("message_stop") }),
]);

const knownEvents = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
]);

type Block =
  | { type: "text" }
  | { type: "tool_use"; id: string; name: string; json: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "other" };

/**
 * Anthropic stream events as stream parts: text deltas as they come, a tool call when its
 * `content_block_stop` arrives (its input streamed as `input_json_delta` pieces), thinking
 * blocks kept raw in `providerFields.anthropic.thinking` so they can be sent back. Input
 * tokens count the cached ones too (Anthropic reports them apart). No `message_stop`: cut.
 */
export async function* mapAnthropicStream(
  events: AsyncIterable<unknown>,
  provider: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamPart> {
  const builder = new ResponseBuilder();
  const blocks = new Map<number, Block>();
  const thinking: Record<string, unknown>[] = [];
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let stopReason: string | null | undefined;
  let stopped = false;
  for await (const raw of events) {
    const type = (raw as { type?: unknown } | null)?.type;
    if (type === "ping") continue;
    const parsed = eventSchema.safeParse(raw);
    if (!parsed.success) {
      if (typeof type === "string" && !knownEvents.has(type)) continue; // a newer event kind: not ours to read
      throw malformedError(provider, `unexpected event: ${parsed.error.message}`);
    }
    const event = parsed.data;
    switch (event.type) {
      case "message_start":
        if (event.message.usage) mergeUsage(usage, event.message.usage);
        break;
      case "content_block_start": {
        const block = event.content_block as Record<string, unknown>;
        if (block.type === "tool_use") {
          blocks.set(event.index, {
            type: "tool_use",
            id: String(block.id ?? ""),
            name: String(block.name ?? ""),
            json: "",
          });
        } else if (block.type === "text") {
          blocks.set(event.index, { type: "text" });
          const text = typeof block.text === "string" ? block.text : "";
          if (text !== "") {
            builder.addText(text);
            yield { type: "text-delta", text };
          }
        } else if (block.type === "thinking") {
          blocks.set(event.index, {
            type: "thinking",
            thinking: String(block.thinking ?? ""),
            signature: String(block.signature ?? ""),
          });
        } else if (block.type === "redacted_thinking") {
          blocks.set(event.index, { type: "redacted_thinking", data: String(block.data ?? "") });
        } else {
          blocks.set(event.index, { type: "other" });
        }
        break;
      }
      case "content_block_delta": {
        const block = blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === "text_delta" && delta.text) {
          builder.addText(delta.text);
          yield { type: "text-delta", text: delta.text };
        } else if (delta.type === "input_json_delta" && block?.type === "tool_use") {
          block.json += delta.partial_json ?? "";
        } else if (delta.type === "thinking_delta" && block?.type === "thinking") {
          block.thinking += delta.thinking ?? "";
        } else if (delta.type === "signature_delta" && block?.type === "thinking") {
          block.signature += delta.signature ?? "";
        }
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(event.index);
        if (block?.type === "tool_use") {
          if (block.id === "" || block.name === "")
            throw malformedError(provider, "a tool_use block without id or name");
          const call = { id: block.id, name: block.name, argumentsJson: block.json === "" ? "{}" : block.json };
          builder.addToolCall(call);
          yield { type: "tool-call", call };
        } else if (block?.type === "thinking") {
          thinking.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
        } else if (block?.type === "redacted_thinking") {
          thinking.push({ type: "redacted_thinking", data: block.data });
        }
        break;
      }
      case "message_delta":
        if (event.delta.stop_reason !== undefined) stopReason = event.delta.stop_reason;
        if (event.usage) mergeUsage(usage, event.usage);
        break;
      case "message_stop":
        stopped = true;
        break;
    }
  }
  if (signal?.aborted) throw abortedError(provider);
  if (!stopped) throw streamEndedEarlyError(provider, "message_stop");
  const reason = mapAnthropicFinishReason(stopReason);
  if (reason === "content-filter" && builder.isEmpty) throw contentRefusedError(provider, "stop_reason refusal");
  const total: Usage = {
    inputTokens: usage.input + usage.cacheRead + usage.cacheWrite,
    outputTokens: usage.output,
    cachedInputTokens: usage.cacheRead,
  };
  builder.setUsage(total);
  yield { type: "usage", usage: total };
  yield {
    type: "finish",
    response: builder.build(reason, thinking.length === 0 ? undefined : { anthropic: { thinking } }),
  };
}

/** Later usage events repeat or raise the counts; keep the latest non-null value of each. */
function mergeUsage(
  into: { input: number; output: number; cacheRead: number; cacheWrite: number },
  from: z.infer<typeof usageSchema>,
) {
  if (typeof from.input_tokens === "number") into.input = from.input_tokens;
  if (typeof from.output_tokens === "number") into.output = from.output_tokens;
  if (typeof from.cache_read_input_tokens === "number") into.cacheRead = from.cache_read_input_tokens;
  if (typeof from.cache_creation_input_tokens === "number") into.cacheWrite = from.cache_creation_input_tokens;
}
