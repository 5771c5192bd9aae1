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

/**
 * The open Server-Sent Events streams of the web chat pages, by chat key. A new page gets a
 * snapshot of the chat first; live events that arrive meanwhile wait behind it, so nothing is
 * lost between the two.
 */
export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly logger: Logger) {
    this.timer = setInterval(() => this.keepAlive(), keepAliveMs);
    this.timer.unref();
  }

  /** Open a stream for `chatKey` and send `snapshot()` first. */
  async open(
    chatKey: string,
    response: ServerResponse,
    snapshot: () => Promise<WebItem[]>,
    name?: string,
  ): Promise<void> {
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
    response.on("close", () => {
      set.delete(subscriber);
      if (set.size === 0 && this.subscribers.get(chatKey) === set) this.subscribers.delete(chatKey);
    });
    try {
      write(response, { type: "snapshot", items: await snapshot() });
    } catch (error) {
      this.logger.error({ err: error, chat: chatKey }, "web console: could not read the chat's history");
      response.end();
      return;
    }
    for (const event of subscriber.buffered ?? []) write(response, event);
    subscriber.buffered = undefined;
  }

  /** Send an event to every page showing `chatKey`. */
  publish(chatKey: string, event: WebEvent): void {
    for (const subscriber of this.subscribers.get(chatKey) ?? []) {
      if (subscriber.buffered) subscriber.buffered.push(event);
      else write(subscriber.response, event);
    }
  }

  /** Send an event only to the pages of `chatKey` opened under `name`; returns how many got it. */
  publishTo(chatKey: string, name: string, event: WebEvent): number {
    let count = 0;
    for (const subscriber of this.subscribers.get(chatKey) ?? []) {
      if (subscriber.name !== name) continue;
      count += 1;
      if (subscriber.buffered) subscriber.buffered.push(event);
      else write(subscriber.response, event);
    }
    return count;
  }

  /** How many pages show `chatKey` now. */
  count(chatKey: string): number {
    return this.subscribers.get(chatKey)?.size ?? 0;
  }

  /** End every stream (the service stops). */
  close(): void {
    clearInterval(this.timer);
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.response.end();
    this.subscribers.clear();
  }

  private keepAlive(): void {
    for (const set of this.subscribers.values())
      for (const subscriber of set) subscriber.response.write(": keep-alive\n\n");
  }
}

function write(response: ServerResponse, event: WebEvent): void {
  if (!response.writableEnded) response.write(`data: ${JSON.stringify(event)}\n\n`);
}
