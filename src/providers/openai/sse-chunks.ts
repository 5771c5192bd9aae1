import { APIError, OpenAIError } from "openai";
import { bodyText, isAbortError, SseDecoder, type ServerSentEvent } from "../server-sent-events.js";

/**
 * The JSON events of a Chat Completions stream, read from the raw response (the SDK's
 * `asResponse()`), in batches: the events of one network read together. The SDK's own reader
 * takes five async layers and a `Promise.race` per event; at 50 tokens a second an answer, per
 * token that was a third of what reading a model's stream cost the service
 * (docs/performance.md, "Real model speeds"). A response of `modelStreamFetch` (the provider's
 * `fetch`) is read from its socket's text directly, in bursts, any other through its web stream.
 * What it yields and throws is the SDK's (its `Stream.fromSSEResponse`, openai 7.x): events up
 * to `data: [DONE]`, an `error` event or an `{ error }` payload as an `APIError`, unparsable
 * JSON as a `SyntaxError`, and an abort as the end of the stream (the caller checks its signal).
 */
export async function* sseChunks(response: Response, signal: AbortSignal | undefined): AsyncGenerator<unknown[]> {
  const chunks = bodyText(response, () => new OpenAIError("Attempted to iterate over a response with no body"));
  const events = new SseDecoder();
  let finished = false;
  try {
    for (;;) {
      const text = await chunks.read();
      if (signal?.aborted) return;
      if (text === undefined) finished = true;
      events.push(text ?? "", finished);
      // The events of one read, as one batch: those before a failing one still go on first.
      const batch: unknown[] = [];
      let done = false;
      let failed: { error: unknown } | undefined;
      for (let event = events.next(); event !== undefined; event = events.next()) {
        if (event.data === "[DONE]") {
          done = true;
          break;
        }
        try {
          batch.push(dataOf(event, response.headers));
        } catch (error) {
          failed = { error };
          break;
        }
      }
      if (batch.length > 0) yield batch;
      if (failed) throw failed.error;
      if (done || finished) return;
    }
  } catch (error) {
    // As the SDK: the transport's abort ends the stream (the caller tells a cut from a stop).
    const transportAbort = !(error instanceof APIError) && isAbortError(error);
    if (!transportAbort && !(signal?.aborted === true && error === signal.reason)) throw error;
  } finally {
    if (!finished) await chunks.cancel();
  }
}

function dataOf(event: ServerSentEvent, headers: Headers): unknown {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
  }
  if (event.event?.startsWith("thread.")) return { event: event.event, data };
  const body = data as { error?: unknown } | null;
  if (event.event === "error") throw new APIError(undefined, (body?.error ?? body) as object, undefined, headers);
  if (body?.error) throw new APIError(undefined, body.error, undefined, headers);
  return data;
}
