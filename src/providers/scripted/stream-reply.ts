import { newCallId } from "../new-call-id.js";
import { abortedError } from "../provider-error-map.js";
import { ResponseBuilder } from "../response-builder.js";
import type { StreamPart, Usage } from "../model-provider.js";
import type { ScriptedReply } from "./compose-reply.js";

/** Words per streamed piece. */
const wordsPerPiece = 3;

export interface StreamPacing {
  /** Pause between pieces, so the chat shows the answer growing as it would with a real model. */
  pieceDelayMs: number;
}

/**
 * A composed reply as a model stream: the text in pieces of a few words (paused between them),
 * then the tool calls, the usage and the finish part. An abort between pieces ends it with
 * `provider.aborted`, as a cut HTTP stream would.
 */
export async function* streamReply(
  reply: ScriptedReply,
  usage: Usage,
  provider: string,
  pacing: StreamPacing,
  signal?: AbortSignal,
): AsyncIterable<StreamPart> {
  const builder = new ResponseBuilder();
  const pieces = reply.text.match(new RegExp(`(?:\\S+\\s*){1,${wordsPerPiece}}|\\s+`, "g")) ?? [];
  for (const piece of pieces) {
    if (signal?.aborted) throw abortedError(provider);
    if (pacing.pieceDelayMs > 0) await pause(pacing.pieceDelayMs, signal);
    if (signal?.aborted) throw abortedError(provider);
    builder.addText(piece);
    yield { type: "text-delta", text: piece };
  }
  for (const call of reply.toolCalls) {
    const modelCall = { id: newCallId(), name: call.name, argumentsJson: JSON.stringify(call.args) };
    builder.addToolCall(modelCall);
    yield { type: "tool-call", call: modelCall };
  }
  builder.setUsage(usage);
  yield { type: "usage", usage };
  yield { type: "finish", response: builder.build(reply.toolCalls.length > 0 ? "tool-calls" : "stop") };
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
