import { z } from "zod";
import type { FinishReason, ModelToolCall, StreamPart, Usage } from "../model-provider.js";
import { abortedError, contentRefusedError, malformedError, streamEndedEarlyError } from "../provider-error-map.js";
import { namespaced } from "../provider-fields.js";
import { ResponseBuilder } from "../response-builder.js";
import { argumentsJsonOf } from "../tool-arguments.js";
import { mapGoogleFinishReason } from "./map-finish-reason.js";

const partSchema = z.looseObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  functionCall: z
    .looseObject({
      name: z.string().nullish(),
      id: z.string().nullish(),
      args: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
});

/** The parts of a Gemini stream chunk we read. */
const chunkSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        index: z.number().int().nullish(),
        content: z.looseObject({ parts: z.array(partSchema).nullish() }).nullish(),
        finishReason: z.string().nullish(),
      }),
    )
    .nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().nullish(),
      candidatesTokenCount: z.number().nullish(),
      thoughtsTokenCount: z.number().nullish(),
      cachedContentTokenCount: z.number().nullish(),
    })
    .nullish(),
});

/**
 * Gemini stream chunks as stream parts. Text parts stream as deltas (thought summaries are
 * not shown); each `functionCall` part arrives whole and is yielded at once, with a stable
 * id made for it when Gemini gave none and its `thoughtSignature` kept raw. Usage is
 * cumulative, the last one counts. No `finishReason` by the end: the stream was cut.
 */
export async function* mapGoogleStream(
  chunks: AsyncIterable<unknown>,
  provider: string,
  signal: AbortSignal | undefined,
  newCallId: () => string,
): AsyncGenerator<StreamPart> {
  const builder = new ResponseBuilder();
  let finish: string | undefined;
  let blockReason: string | undefined;
  let textSignature: string | undefined;
  for await (const raw of chunks) {
    const parsed = chunkSchema.safeParse(raw);
    if (!parsed.success) throw malformedError(provider, `unexpected chunk: ${parsed.error.message}`);
    const chunk = parsed.data;
    if (chunk.usageMetadata) builder.setUsage(usageOf(chunk.usageMetadata));
    if (chunk.promptFeedback?.blockReason) blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.find((one) => (one.index ?? 0) === 0);
    if (!candidate) continue;
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall) {
        const call = toolCallOf(part.functionCall, part.thoughtSignature ?? undefined, newCallId, provider);
        builder.addToolCall(call);
        yield { type: "tool-call", call };
      } else if (part.thought) {
        // A thought summary: not part of the answer.
      } else {
        if (part.thoughtSignature) textSignature = part.thoughtSignature;
        if (part.text) {
          builder.addText(part.text);
          yield { type: "text-delta", text: part.text };
        }
      }
    }
    if (candidate.finishReason) finish = candidate.finishReason;
  }
  if (signal?.aborted) throw abortedError(provider);
  if (finish === undefined && blockReason !== undefined)
    throw contentRefusedError(provider, `prompt blocked: ${blockReason}`);
  if (finish === undefined) throw streamEndedEarlyError(provider, "a finishReason");
  const reason: FinishReason = mapGoogleFinishReason(finish);
  if (reason === "content-filter" && builder.isEmpty) throw contentRefusedError(provider, `finishReason ${finish}`);
  if (builder.hasUsage) yield { type: "usage", usage: builder.currentUsage };
  const fields = textSignature === undefined ? undefined : namespaced("google", { thoughtSignature: textSignature });
  yield { type: "finish", response: builder.build(reason, fields) };
}

function toolCallOf(
  functionCall: NonNullable<z.infer<typeof partSchema>["functionCall"]>,
  thoughtSignature: string | undefined,
  newCallId: () => string,
  provider: string,
): ModelToolCall {
  if (!functionCall.name) throw malformedError(provider, "a functionCall without a name");
  const call: ModelToolCall = {
    id: functionCall.id ?? newCallId(),
    name: functionCall.name,
    argumentsJson: argumentsJsonOf(functionCall.args),
  };
  const fields = thoughtSignature === undefined ? undefined : namespaced("google", { thoughtSignature });
  if (fields) call.providerFields = fields;
  return call;
}

function usageOf(usage: NonNullable<z.infer<typeof chunkSchema>["usageMetadata"]>): Usage {
  return {
    inputTokens: usage.promptTokenCount ?? 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    cachedInputTokens: usage.cachedContentTokenCount ?? 0,
  };
}
