import { createServer, get, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { capturedLogger } from "../../tests/tools/captured-logger.js";
import { waitUntil } from "../../tests/tools/wait-until.js";
import { EventHub } from "./event-hub.js";

let server: Server | undefined;
let hub: EventHub | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  hub?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose every request opens a stream of the chat named by its path, through `hub`. */
async function serve(events: EventHub): Promise<number> {
  server = createServer((request, response: ServerResponse) => {
    void events.open(request.url?.slice(1) ?? "", response, async () => []);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** A client that sends its request and then never reads (its receive buffer fills). */
function stalledClient(port: number, chat: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET /${chat} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    sockets.push(socket);
  });
}

function status(port: number, chat: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const asked = get({ host: "127.0.0.1", port, path: `/${chat}`, agent: false }, (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    asked.on("error", reject);
    // Kept open: the stream counts until the client goes.
    sockets.push({ destroy: () => asked.destroy() } as unknown as Socket);
  });
}

describe("EventHub", () => {
  it("caps the streams per chat and in all, answering 503 over the cap", async () => {
    const { logger, lines } = capturedLogger();
    hub = new EventHub(logger, { maxStreamsPerChat: 2, maxStreams: 3 });
    const port = await serve(hub);
    expect(await status(port, "a")).toBe(200);
    expect(await status(port, "a")).toBe(200);
    expect(await status(port, "a")).toBe(503);
    expect(await status(port, "b")).toBe(200);
    expect(await status(port, "c")).toBe(503);
    expect(hub.countAll()).toBe(3);
    expect(lines.some((line) => line.msg.includes("event stream refused: 3 event streams are open (at most 3)"))).toBe(
      true,
    );
    // A client that goes frees its place (the last client asked for c and was refused; the one before is b's).
    sockets.pop()?.destroy();
    sockets.pop()?.destroy();
    await waitUntil("the stream of b closes", () => hub?.countAll() === 2);
    expect(await status(port, "c")).toBe(200);
  });

  it("drops a client that does not read once its unsent bytes pass the bound, and keeps serving the others", async () => {
    const { logger, lines } = capturedLogger();
    hub = new EventHub(logger, { maxBufferedBytes: 64 * 1024 });
    const port = await serve(hub);
    await stalledClient(port, "a");
    await waitUntil("the stream opens", () => hub?.count("a") === 1);
    const text = "x".repeat(16 * 1024);
    // The kernel's socket buffers take some first; then what is unsent waits in the process.
    let published = 0;
    while (hub.count("a") > 0 && published < 100_000) {
      hub.publish("a", {
        type: "item",
        item: {
          kind: "message",
          id: `m${published}`,
          author: { kind: "system", name: "x", displayName: "x" },
          text,
          at: "",
        },
      });
      published += 1;
      if (published % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await waitUntil("the stalled stream is dropped", () => hub?.count("a") === 0);
    expect(lines.some((line) => line.msg === "web console: dropped an event stream whose client does not read")).toBe(
      true,
    );
    expect(hub.countAll()).toBe(0);
  });
});
