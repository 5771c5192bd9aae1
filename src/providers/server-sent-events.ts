import { takeNodeBody, type TextChunks } from "../http/node-http-fetch.js";

/**
 * A streamed response's text as it arrives: read from its socket in bursts when
 * `modelStreamFetch` answered it, else through its web stream. `noBody`: the error for a
 * response without a body (each SDK has its own).
 */
export function bodyText(response: Response, noBody: () => Error): TextChunks & { cancel(): void | Promise<void> } {
  return takeNodeBody(response) ?? webChunks(response, noBody);
}

/** A web stream body's text, chunk by chunk (a character split between chunks kept whole). */
function webChunks(response: Response, noBody: () => Error): TextChunks & { cancel(): Promise<void> } {
  if (!response.body) throw noBody();
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

export interface ServerSentEvent {
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

  /** Whether text of an event not yet ended by its blank line is held (a line, or fields read). */
  get pending(): boolean {
    return this.buffer.trim() !== "" || this.data !== null || this.event !== null;
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

/** The SDKs' test (`isAbortError`): a spec fetch's abort. */
export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "name" in error && error.name === "AbortError";
}
