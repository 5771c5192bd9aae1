import { ApiError } from "@google/genai";
import { bodyText, SseDecoder } from "../server-sent-events.js";

/**
 * The JSON chunks of a Gemini stream (`streamGenerateContent?alt=sse`), read from the response
 * the SDK's request got, in place of the SDK's own reader: that one parses each event three
 * times (twice to look for an error, once more through a `Response` made for it) and tried to
 * parse every read whole as JSON, 34 µs of CPU a token against 15 for Anthropic's SDK and 9 for
 * OpenAI's (docs/performance.md, "A stream's cost by provider"). What it yields and throws is
 * the SDK's (`processStreamResponse`, @google/genai 1.x): each `data:` event's JSON, the raw
 * REST chunk (the fields `mapGoogleStream` reads have the same names); an `{ error }` chunk
 * with an HTTP code as the SDK's `ApiError` (`got status: <status>. <json>`); unparsable JSON
 * as an error; an event the end cut off as `Incomplete JSON segment at the end`.
 */
export async function* geminiChunks(response: Response, signal: AbortSignal | undefined): AsyncGenerator<unknown> {
  const text = bodyText(response, () => new Error("Response body is empty"));
  const events = new SseDecoder();
  let finished = false;
  try {
    for (;;) {
      const read = await text.read();
      if (signal?.aborted) return;
      if (read === undefined) {
        finished = true;
        // The SDK refuses an event without its blank line at the end.
        if (events.pending) throw new Error("Incomplete JSON segment at the end");
      }
      events.push(read ?? "", finished);
      for (let event = events.next(); event !== undefined; event = events.next()) yield chunkOf(event.data);
      if (finished) return;
    }
  } finally {
    if (!finished) await text.cancel();
  }
}

function chunkOf(data: string): unknown {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (error) {
    throw new Error(`exception parsing stream chunk ${data}. ${String(error)}`);
  }
  const failure = (chunk as { error?: unknown } | null)?.error;
  if (typeof failure === "object" && failure !== null) {
    const { code, status } = failure as { code?: unknown; status?: unknown };
    if (typeof code === "number" && code >= 400 && code < 600)
      throw new ApiError({ message: `got status: ${String(status)}. ${JSON.stringify(chunk)}`, status: code });
  }
  return chunk;
}
