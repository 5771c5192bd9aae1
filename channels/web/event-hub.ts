import type { ServerResponse } from "node:http";
import type { Logger } from "../../src/log/logger.js";
import type { WebEvent, WebItem } from "./web-items.js";

interface Subscriber {
  response: ServerResponse;
  /** The name the page gave (private replies reach only the pages of that name). */
  name: string | undefined;
  /** Live events that came while the snapshot was being read; sent right after it. */
  buffered: WebEvent[] | undefined;
}

/** How often an idle stream gets a comment line, so proxies keep it open. */
const keepAliveMs = 15_000;

/** How many event streams may be open at once, per chat and in all. */
export interface EventHubLimits {
  /** Open streams of one chat (one world's page); default 100. */
  maxStreamsPerChat?: number;
  /** Open streams of the whole process; default 500. */
  maxStreams?: number;
  /** Bytes a stream may have waiting unsent before its client is dropped as not reading; default 1 MiB. */
  maxBufferedBytes?: number;
}

const defaultLimits = { maxStreamsPerChat: 100, maxStreams: 500, maxBufferedBytes: 1024 * 1024 };

/**
 * The open Server-Sent Events streams of the web chat pages, by chat key. A new page gets a
 * snapshot of the chat first; live events that arrive meanwhile wait behind it, so nothing is
 * lost between the two. Streams are capped per chat and in all (a page over the cap gets 503
 * and its browser retries later), and a client that does not read is dropped once its
 * unsent bytes pass a bound, so a slow or stalled reader cannot make the process buffer
 * without end.
 */
export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly timer: NodeJS.Timeout;
  private readonly limits: Required<EventHubLimits>;
  private total = 0;

  constructor(
    private readonly logger: Logger,
    limits: EventHubLimits = {},
  ) {
    this.limits = { ...defaultLimits, ...limits };
    this.timer = setInterval(() => this.keepAlive(), keepAliveMs);
    this.timer.unref();
  }

  /**
   * Open a stream for `chatKey` and send `snapshot()` first; returns false (having answered
   * 503) when the chat or the process has as many streams as it may.
   */
  async open(
    chatKey: string,
    response: ServerResponse,
    snapshot: () => Promise<WebItem[]>,
    name?: string,
  ): Promise<boolean> {
    const inChat = this.count(chatKey);
    if (inChat >= this.limits.maxStreamsPerChat || this.total >= this.limits.maxStreams) {
      const which =
        inChat >= this.limits.maxStreamsPerChat
          ? `this chat has ${inChat} open event streams (at most ${this.limits.maxStreamsPerChat})`
          : `${this.total} event streams are open (at most ${this.limits.maxStreams})`;
      this.logger.warn({ chat: chatKey }, `web console: event stream refused: ${which}`);
      const body = `too many open event streams: ${which}; try again later\n`;
      response
        .writeHead(503, {
          "content-type": "text/plain; charset=utf-8",
          "content-length": String(Buffer.byteLength(body)),
          "retry-after": "10",
          "cache-control": "no-store",
        })
        .end(body);
      return false;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    response.write("retry: 2000\n\n");
    const subscriber: Subscriber = { response, name, buffered: [] };
    let set = this.subscribers.get(chatKey);
    if (!set) {
      set = new Set();
      this.subscribers.set(chatKey, set);
    }
    set.add(subscriber);
    this.total += 1;
    response.on("close", () => {
      if (set.delete(subscriber)) this.total -= 1;
      if (set.size === 0 && this.subscribers.get(chatKey) === set) this.subscribers.delete(chatKey);
    });
    try {
      this.write(subscriber, { type: "snapshot", items: await snapshot() });
    } catch (error) {
      this.logger.error({ err: error, chat: chatKey }, "web console: could not read the chat's history");
      response.end();
      return true;
    }
    for (const event of subscriber.buffered ?? []) this.write(subscriber, event);
    subscriber.buffered = undefined;
    return true;
  }

  /** Send an event to every page showing `chatKey`. */
  publish(chatKey: string, event: WebEvent): void {
    this.publishTo(chatKey, undefined, event);
  }

  /** Send an event only to the pages of `chatKey` opened under `name` (all when undefined); returns how many got it. */
  publishTo(chatKey: string, name: string | undefined, event: WebEvent): number {
    let count = 0;
    for (const subscriber of this.subscribers.get(chatKey) ?? []) {
      if (name !== undefined && subscriber.name !== name) continue;
      count += 1;
      if (subscriber.buffered) subscriber.buffered.push(event);
      else this.write(subscriber, event);
    }
    return count;
  }

  /** How many pages show `chatKey` now. */
  count(chatKey: string): number {
    return this.subscribers.get(chatKey)?.size ?? 0;
  }

  /** How many streams are open in all. */
  countAll(): number {
    return this.total;
  }

  /** End every stream (the service stops). */
  close(): void {
    clearInterval(this.timer);
    for (const set of this.subscribers.values()) {
      for (const subscriber of set) subscriber.response.end();
      set.clear();
    }
    this.subscribers.clear();
    this.total = 0;
  }

  private keepAlive(): void {
    for (const set of this.subscribers.values())
      for (const subscriber of set) this.send(subscriber, ": keep-alive\n\n");
  }

  private write(subscriber: Subscriber, event: WebEvent): void {
    this.send(subscriber, `data: ${JSON.stringify(event)}\n\n`);
  }

  /** Write to a stream, or drop its client when what it has not read passes the bound. */
  private send(subscriber: Subscriber, text: string): void {
    const { response } = subscriber;
    if (response.writableEnded || response.destroyed) return;
    if (response.writableLength > this.limits.maxBufferedBytes) {
      this.logger.warn(
        { unsentBytes: response.writableLength, name: subscriber.name },
        "web console: dropped an event stream whose client does not read",
      );
      response.destroy();
      return;
    }
    response.write(text);
  }
}
