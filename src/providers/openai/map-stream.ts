import { z } from "zod";
import type { FinishReason, ModelToolCall, StreamPart, Usage } from "../model-provider.js";
import { abortedError, contentRefusedError, malformedError, streamEndedEarlyError } from "../provider-error-map.js";
import { namespaced } from "../provider-fields.js";
import { ResponseBuilder } from "../response-builder.js";
import { mapOpenAIFinishReason } from "./map-finish-reason.js";

const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

/** The parts of a Chat Completions chunk we read; everything else may be anything. */
const chunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nullish(),
        delta: z
          .looseObject({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(toolCallDeltaSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .looseObject({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

interface PendingCall {
  id: string;
  name: string;
  argumentsJson: string;
  extra: Record<string, unknown>;
}

const knownCallKeys = new Set(["index", "id", "type", "function"]);

/**
 * Chat Completions chunks as stream parts. Text streams as it comes; tool calls arrive as
 * pieces keyed by `index` (id and name first, arguments split over many chunks) and are
 * yielded whole once the stream is finished. A stream without a `finish_reason` was cut.
 */
export async function* mapOpenAIStream(
  batches: AsyncIterable<readonly unknown[]>,
  provider: string,
  signal: AbortSignal | undefined,
  newCallId: () => string,
): AsyncGenerator<StreamPart> {
  const builder = new ResponseBuilder();
  const calls = new Map<string | number, PendingCall>();
  let finish: string | undefined;
  let refusal = "";
  for await (const batch of batches) {
    // The text pieces of one batch (one network read) go on as one part.
    let text = "";
    for (const raw of batch) {
      // Nearly every chunk is a piece of text: checked by hand (what the schema would accept), the
      // rest by the schema (a zod parse per token was a tenth of reading a stream).
      const piece = textPieceOf(raw);
      if (piece !== undefined) {
        text += piece;
        continue;
      }
      // Anything else may fail the stream: the text before it goes on first, as it came.
      if (text !== "") {
        builder.addText(text);
        yield { type: "text-delta", text };
        text = "";
      }
      const parsed = chunkSchema.safeParse(raw);
      if (!parsed.success) throw malformedError(provider, `unexpected chunk: ${parsed.error.message}`);
      const chunk = parsed.data;
      if (chunk.usage) builder.setUsage(usageOf(chunk.usage));
      const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) text += delta.content;
      if (delta?.refusal) refusal += delta.refusal;
      for (const [position, piece] of (delta?.tool_calls ?? []).entries()) {
        const key = piece.index ?? piece.id ?? `position-${position}`;
        let call = calls.get(key);
        if (!call) {
          call = { id: piece.id ?? "", name: "", argumentsJson: "", extra: {} };
          calls.set(key, call);
        }
        if (piece.id && call.id === "") call.id = piece.id;
        // The name comes whole in the first piece; some servers repeat it in later ones.
        if (piece.function?.name && call.name === "") call.name = piece.function.name;
        if (piece.function?.arguments) call.argumentsJson += piece.function.arguments;
        for (const [name, value] of Object.entries(piece)) {
          if (!knownCallKeys.has(name)) call.extra[name] = value;
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (text !== "") {
      builder.addText(text);
      yield { type: "text-delta", text };
    }
  }
  if (signal?.aborted) throw abortedError(provider);
  if (finish === undefined) throw streamEndedEarlyError(provider, "the model finished (no finish_reason)");

  for (const call of calls.values()) {
    if (call.name === "") throw malformedError(provider, "a tool call without a name");
    const toolCall: ModelToolCall = {
      id: call.id === "" ? newCallId() : call.id,
      name: call.name,
      argumentsJson: call.argumentsJson === "" ? "{}" : call.argumentsJson,
    };
    const fields = namespaced("openai", call.extra);
    if (fields) toolCall.providerFields = fields;
    builder.addToolCall(toolCall);
    yield { type: "tool-call", call: toolCall };
  }
  let reason: FinishReason = mapOpenAIFinishReason(finish);
  if (refusal !== "") reason = "content-filter";
  if (reason === "content-filter" && builder.isEmpty) {
    throw contentRefusedError(provider, `refused${refusal ? `: ${refusal.slice(0, 300)}` : " (content filter)"}`);
  }
  if (builder.hasUsage) yield { type: "usage", usage: builder.currentUsage };
  yield { type: "finish", response: builder.build(reason) };
}

/**
 * The text of a chunk that is only a piece of text (one choice, index 0, its delta's `content` a
 * string; no usage, refusal, tool calls or finish), which `chunkSchema` accepts as it is; else
 * undefined, and the chunk goes through the schema.
 */
function textPieceOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const { choices, usage } = raw as { choices?: unknown; usage?: unknown };
  if (usage !== undefined && usage !== null) return undefined;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice: unknown = choices[0];
  if (typeof choice !== "object" || choice === null) return undefined;
  const { index, delta, finish_reason } = choice as { index?: unknown; delta?: unknown; finish_reason?: unknown };
  if (!(index === 0 || index === undefined || index === null)) return undefined;
  if (finish_reason !== undefined && finish_reason !== null) return undefined;
  if (typeof delta !== "object" || delta === null) return undefined;
  const { content, refusal, tool_calls } = delta as { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  if (typeof content !== "string") return undefined;
  if ((refusal !== undefined && refusal !== null) || (tool_calls !== undefined && tool_calls !== null))
    return undefined;
  return content;
}

function usageOf(usage: NonNullable<z.infer<typeof chunkSchema>["usage"]>): Usage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}
