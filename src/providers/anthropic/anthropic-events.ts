import { APIError } from "@anthropic-ai/sdk";
import { bodyText, isAbortError, SseDecoder } from "../server-sent-events.js";

/**
 * The events of a Messages stream, read from the raw response (the SDK's `asResponse()`) in
 * place of the SDK's `Stream`, whose reader (web stream, line decoder, async layers per event)
 * cost 15 µs of CPU a token against 9 for OpenAI's read this way (docs/performance.md, "A
 * stream's cost by provider"). What it yields and throws is the SDK's (`Stream.fromSSEResponse`,
 * @anthropic-ai/sdk 1.x): each named event's JSON but `ping`s and events without data; an
 * `error` event as the SDK's `APIError` (its body's `error.type` the error's type); unparsable
 * JSON as a `SyntaxError`; the transport's abort as the end of the stream (the caller checks
 * its signal).
 */
export async function* anthropicEvents(response: Response, signal: AbortSignal | undefined): AsyncGenerator<unknown> {
  const text = bodyText(response, () => new Error("Attempted to iterate over a response with no body"));
  const events = new SseDecoder();
  let finished = false;
  try {
    for (;;) {
      const read = await text.read();
      if (signal?.aborted) return;
      if (read === undefined) finished = true;
      events.push(read ?? "", finished);
      for (let event = events.next(); event !== undefined; event = events.next()) {
        if (event.event === null || event.event === "ping") continue;
        if (event.event === "error") {
          const body = parsedOrText(event.data);
          const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
          throw new APIError(
            undefined,
            body as object,
            undefined,
            response.headers,
            typeof type === "string" ? (type as never) : undefined,
          );
        }
        if (event.data === "") continue;
        yield JSON.parse(event.data);
      }
      if (finished) return;
    }
  } catch (error) {
    // As the SDK: the transport's abort ends the stream (the caller tells a cut from a stop).
    const transportAbort = !(error instanceof APIError) && isAbortError(error);
    if (!transportAbort && !(signal?.aborted === true && error === signal.reason)) throw error;
  } finally {
    if (!finished) await text.cancel();
  }
}

/** The SDK's `safeJSON(data) ?? data`. */
function parsedOrText(data: string): unknown {
  try {
    return JSON.parse(data) ?? data;
  } catch {
    return data;
  }
}
