import { APIError, OpenAIError } from "openai";
import { takeNodeBody, type TextChunks } from "../../http/node-http-fetch.js";

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
  const chunks = takeNodeBody(response) ?? webChunks(response);
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
  /** The event's data lines so far, joined by `\n`; null before its first. */
  private data: string | null = null;
  private readonly ready: ServerSentEvent[] = [];
  private readAt = 0;

  /** Adds text; `end`: the stream is over (the last line and event are complete). */
  push(text: string, end: boolean): void {
    const buffer = this.buffer + text;
    let start = 0;
    // The next `\r` at or after `start` (-1: none in the rest; searched again only once passed).
    let cr = -2;
    for (;;) {
      const newline = buffer.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
      const at = cr < 0 ? newline : newline < 0 ? cr : Math.min(newline, cr);
      if (at < 0) break;
      const isCr = at === cr;
      // A `\r` last in the text may be the first half of `\r\n`: wait for what follows.
      if (isCr && at === buffer.length - 1 && !end) break;
      this.line(buffer, start, at);
      start = at + (isCr && buffer.charCodeAt(at + 1) === 10 ? 2 : 1);
    }
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    if (end) {
      if (this.buffer !== "") this.line(this.buffer, 0, this.buffer.length);
      this.buffer = "";
      this.line("", 0, 0);
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

  /** The line `text[from, to)`, read where it lies (one string made a line: its value). */
  private line(text: string, from: number, to: number): void {
    if (from === to) {
      if (!this.event && this.data === null) return;
      this.ready.push({ event: this.event, data: this.data ?? "" });
      this.event = null;
      this.data = null;
      return;
    }
    if (text.charCodeAt(from) === 58) return; // `:` a comment
    const colon = text.indexOf(":", from);
    const nameEnd = colon < 0 || colon > to ? to : colon;
    const isData = nameEnd - from === 4 && text.startsWith("data", from);
    if (!isData && !(nameEnd - from === 5 && text.startsWith("event", from))) return;
    let valueStart = nameEnd === to ? to : nameEnd + 1;
    if (valueStart < to && text.charCodeAt(valueStart) === 32) valueStart++;
    const value = text.slice(valueStart, to);
    if (!isData) this.event = value;
    else this.data = this.data === null ? value : `${this.data}\n${value}`;
  }
}
