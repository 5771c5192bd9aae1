import { APIError, OpenAIError } from "openai";
import { ReadPacer } from "../../http/read-pacer.js";
import { takeNodeBody, type TextChunks } from "../../http/node-http-fetch.js";

/**
 * Model streams are read at most every 50 to 100 ms after their first few events (a token each):
 * what comes meanwhile is read, parsed and handed on at once (docs/performance.md, "Reading a
 * model's stream in bursts"). Chats see streamed words once a second at the most, so this costs
 * them nothing; the first words are read as they come.
 */
const modelStreamPacer = new ReadPacer(50);

/**
 * The JSON events of a Chat Completions stream, read from the raw response (the SDK's
 * `asResponse()`), in batches: the events of one network read together. The SDK's own reader
 * takes five async layers and a `Promise.race` per event; at 50 tokens a second an answer, per
 * token that was a third of what reading a model's stream cost the service
 * (docs/performance.md, "Real model speeds"). A response of `nodeHttpFetch` (the provider's
 * `fetch`) is read from its socket's text directly, in bursts ({@link modelStreamPacer}), any
 * other through its web stream.
 * What it yields and throws is the SDK's (its `Stream.fromSSEResponse`, openai 7.x): events up
 * to `data: [DONE]`, an `error` event or an `{ error }` payload as an `APIError`, unparsable
 * JSON as a `SyntaxError`, and an abort as the end of the stream (the caller checks its signal).
 */
export async function* sseChunks(response: Response, signal: AbortSignal | undefined): AsyncGenerator<unknown[]> {
  const chunks = takeNodeBody(response, modelStreamPacer) ?? webChunks(response);
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

/** A web stream body's text, chunk by chunk (a character split between chunks kept whole). */
function webChunks(response: Response): TextChunks & { cancel(): Promise<void> } {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let over = false;
  return {
    async read() {
      if (over) return undefined;
      const read = await reader.read();
      if (!read.done) return decoder.decode(read.value, { stream: true });
      over = true;
      reader.releaseLock();
      const rest = decoder.decode();
      return rest === "" ? undefined : rest;
    },
    async cancel() {
      if (over) return;
      over = true;
      await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    },
  };
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

/** The SDK's test (`isAbortError`): a spec fetch's abort. */
function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "name" in error && error.name === "AbortError";
}

interface ServerSentEvent {
  event: string | null;
  data: string;
}

/**
 * Server-sent events from text as it arrives: lines end in `\n`, `\r\n` or `\r`; a blank line
 * ends an event; `event:` and `data:` fields (data lines joined by `\n`), comments and other
 * fields skipped. An event the stream's end cuts off (no blank line after it) still counts.
 */
export class SseDecoder {
  private buffer = "";
  private event: string | null = null;
  private data: string[] = [];
  private readonly ready: ServerSentEvent[] = [];
  private readAt = 0;

  /** Adds text; `end`: the stream is over (the last line and event are complete). */
  push(text: string, end: boolean): void {
    const buffer = this.buffer + text;
    let start = 0;
    for (;;) {
      const at = lineEnd(buffer, start);
      if (at < 0) break;
      const cr = buffer.charCodeAt(at) === 13;
      // A `\r` last in the text may be the first half of `\r\n`: wait for what follows.
      if (cr && at === buffer.length - 1 && !end) break;
      this.line(buffer.slice(start, at));
      start = at + (cr && buffer.charCodeAt(at + 1) === 10 ? 2 : 1);
    }
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    if (end) {
      if (this.buffer !== "") this.line(this.buffer);
      this.buffer = "";
      this.line("");
    }
  }

  /** The next complete event, in order, or undefined. */
  next(): ServerSentEvent | undefined {
    if (this.readAt === this.ready.length) {
      this.ready.length = 0;
      this.readAt = 0;
      return undefined;
    }
    return this.ready[this.readAt++];
  }

  private line(line: string): void {
    if (line === "") {
      if (!this.event && this.data.length === 0) return;
      this.ready.push({ event: this.event, data: this.data.join("\n") });
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return; // `:` a comment
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== "event" && field !== "data") return;
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "event") this.event = value;
    else this.data.push(value);
  }
}

/** The index of the next `\n` or `\r` from `from`, or -1. */
function lineEnd(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  const cr = text.indexOf("\r", from);
  if (cr < 0) return newline;
  if (newline < 0) return cr;
  return Math.min(newline, cr);
}
