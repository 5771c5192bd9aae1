import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelStreamFetch, nodeHttpFetch, type TextChunks, takeNodeBody } from "../../src/http/node-http-fetch.js";
import { ReadPacer } from "../../src/http/read-pacer.js";

/** A self-signed certificate for 127.0.0.1, for tests only (tests/fakes/tls/README.md). */
const tls = {
  key: readFileSync(path.join(import.meta.dirname, "../fakes/tls/localhost-key.pem")),
  cert: readFileSync(path.join(import.meta.dirname, "../fakes/tls/localhost-cert.pem")),
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A server on 127.0.0.1 answering with `handle`; `connections` counts the connections it accepted. */
async function serve(handle: Handler, secure = false): Promise<{ url: string; connections: () => number }> {
  const server: Server = secure ? createTlsServer(tls, handle) : createServer(handle);
  let connections = 0;
  server.on(secure ? "secureConnection" : "connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `${secure ? "https" : "http"}://127.0.0.1:${port}/`, connections: () => connections };
}

/**
 * Writes `count` server-sent events (`data: {"n":i}`), `gapMs` apart; `finish` sends the last
 * (by default with the body's end, in one write).
 */
function events(
  count: number,
  gapMs: number,
  finish: (response: ServerResponse, last: string) => void = (response, last) => response.end(last),
): Handler {
  return (_, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    let sent = 0;
    const timer = setInterval(() => {
      const event = `data: {"n":${sent}}\n\n`;
      if (++sent < count) {
        response.write(event);
        return;
      }
      clearInterval(timer);
      finish(response, event);
    }, gapMs);
    response.on("close", () => clearInterval(timer));
  };
}

/** Every read of `chunks` until the end. */
async function readAll(chunks: TextChunks): Promise<string[]> {
  const reads: string[] = [];
  for (let text = await chunks.read(); text !== undefined; text = await chunks.read()) reads.push(text);
  return reads;
}

function numbersIn(text: string): number[] {
  return [...text.matchAll(/"n":(\d+)/g)].map((match) => Number(match[1]));
}

/** Until the test ends, TLS connections accept any certificate (read at each connection). */
function trustAnyCertificate(): void {
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  cleanups.push(() => {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
  });
}

/** A body of `modelStreamFetch` (read in bursts), as text chunks. */
async function pacedBody(url: string, init: RequestInit = {}): Promise<TextChunks> {
  const chunks = takeNodeBody(await modelStreamFetch(url, init));
  if (!chunks) throw new Error("not a nodeHttpFetch body");
  return chunks;
}

describe("reading a model's stream in bursts (ReadPacer)", () => {
  const count = 90;
  const sequence = Array.from({ length: count }, (_, index) => index);

  for (const secure of [false, true]) {
    it(`reads many small events in few reads, whole and in order, over ${secure ? "TLS" : "plain TCP"}`, async () => {
      const { url } = await serve(events(count, 5), secure);
      // nodeHttpFetch takes no CA of its own: the test certificate is trusted by turning checks off.
      if (secure) trustAnyCertificate();
      const reads = await readAll(await pacedBody(url));
      expect(numbersIn(reads.join(""))).toEqual(sequence);
      // One read an event without the pacer (90); after the first 8, held 50 to 100 ms: 10 to 20 a read.
      expect(reads.length).toBeLessThanOrEqual(count / 3);
    });
  }

  it("reads a body through its web stream (what the Anthropic and Gemini SDKs read) in bursts too", async () => {
    const { url } = await serve(events(count, 5));
    const response = await modelStreamFetch(url);
    const decoder = new TextDecoder();
    const reads: string[] = [];
    for await (const bytes of response.body as ReadableStream<Uint8Array>)
      reads.push(decoder.decode(bytes, { stream: true }));
    expect(numbersIn(reads.join(""))).toEqual(sequence);
    expect(reads.length).toBeLessThanOrEqual(count / 3);
  });

  it("reads the connection again once the body has ended: a close by the server is seen before the next request", async () => {
    // Raw HTTP, so that the last events, the body's end and the close come at once. A POST sent
    // on that connection would be reset (and a POST is never sent again).
    let connections = 0;
    const server = createNetServer((socket) => {
      connections++;
      socket.once("data", (request: Buffer) => {
        if (request.toString().startsWith("POST")) {
          socket.end("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nposted");
          return;
        }
        const chunk = (n: number) => {
          const event = `data: {"n":${n}}\n\n`;
          return `${event.length.toString(16)}\r\n${event}\r\n`;
        };
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
        let n = 0;
        const timer = setInterval(() => {
          if (n < 10) {
            socket.write(chunk(n++));
            return;
          }
          clearInterval(timer);
          // The rest while the socket is held: read in one go when the pacer lets it read again.
          socket.end(`${chunk(10)}${chunk(11)}0\r\n\r\n`);
        }, 5);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const reads = await readAll(await pacedBody(url));
    expect(numbersIn(reads.join(""))).toEqual(Array.from({ length: 12 }, (_, index) => index));
    const answer = await nodeHttpFetch(url, { method: "POST", body: "{}" });
    expect(await answer.text()).toBe("posted");
    expect(connections).toBe(2);
  });

  it("fails a body cut while its socket is held with 'terminated', as fetch does", async () => {
    const { url } = await serve(events(20, 2, (r, last) => r.write(last, () => r.socket?.destroy())));
    const chunks = await pacedBody(url);
    await expect(readAll(chunks)).rejects.toThrow("terminated");
  });

  it("holds a socket only while Node itself reads it, and lets a held one go", () => {
    const reading = { reading: true, stops: 0, starts: 0 };
    const handle = {
      get reading() {
        return reading.reading;
      },
      readStop: () => {
        reading.stops++;
        return 0;
      },
      readStart: () => {
        reading.starts++;
        return 0;
      },
    };
    const socket = { destroyed: false, _handle: handle } as unknown as Socket;
    const pacer = new ReadPacer(60_000);
    pacer.hold(socket);
    pacer.hold(socket);
    expect(pacer.holds(socket)).toBe(true);
    expect(reading.stops).toBe(1);
    pacer.letGo(socket);
    expect(pacer.holds(socket)).toBe(false);
    expect(reading.starts).toBe(1);
    // Stopped by Node's flow control: not held, and not started again by the pacer.
    reading.reading = false;
    pacer.hold(socket);
    expect(pacer.holds(socket)).toBe(false);
    expect(reading.stops).toBe(1);
  });
});
