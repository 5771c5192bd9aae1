import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { nodeHttpFetch } from "../../http/node-http-fetch.js";
import { SseDecoder } from "../server-sent-events.js";
import { sseChunks } from "./sse-chunks.js";

function decodeAll(pieces: string[]): { event: string | null; data: string }[] {
  const decoder = new SseDecoder();
  const events: { event: string | null; data: string }[] = [];
  pieces.forEach((piece, index) => {
    decoder.push(piece, index === pieces.length - 1);
    for (let event = decoder.next(); event !== undefined; event = decoder.next()) events.push(event);
  });
  return events;
}

function responseOf(pieces: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function collect(response: Response): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const batch of sseChunks(response, undefined)) out.push(...batch);
  return out;
}

describe("SseDecoder", () => {
  it("splits events on blank lines whatever the line ends and wherever the reads cut them", () => {
    expect(decodeAll(["data: a\r", "\n\r\ndata: b\n", "\ndata: c\r\rdata:d", ""])).toEqual([
      { event: null, data: "a" },
      { event: null, data: "b" },
      { event: null, data: "c" },
      { event: null, data: "d" },
    ]);
  });

  it("reads a field without a colon as empty, and only `data` and `event` exactly", () => {
    expect(decodeAll(["data\n\nevent\ndata:x\n\ndatax: y\neven: z\n\ndata:  two spaces\r\n\r\n", ""])).toEqual([
      { event: null, data: "" },
      { event: "", data: "x" },
      { event: null, data: " two spaces" },
    ]);
  });

  it("joins data lines, keeps the event name, skips comments and other fields", () => {
    expect(decodeAll([': ping\n\nevent: error\nid: 7\ndata: {"a":\ndata:  1}\nretry: 5\n\n', ""])).toEqual([
      { event: "error", data: '{"a":\n 1}' },
    ]);
  });
});

describe("sseChunks", () => {
  it("parses each event's JSON and stops at [DONE]", async () => {
    const response = responseOf(['data: {"n":1}\n\ndata: {"n"', ':2}\n\ndata: [DONE]\n\ndata: {"n":3}\n\n']);
    expect(await collect(response)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("reads a nodeHttpFetch response from its socket, as it arrives", async () => {
    const pieces = ['data: {"n":1}\n', '\ndata: {"n"', ":2}\n\n", "data: [DONE]\n\n"];
    const server = createServer((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return response.end();
        response.write(piece);
        setTimeout(next, 5);
      };
      next();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const response = await nodeHttpFetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {});
      expect(await collect(response)).toEqual([{ n: 1 }, { n: 2 }]);
      // Its web stream was never read (the body was read from the socket).
      await expect(response.text()).rejects.toBeInstanceOf(TypeError);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("gives the events of one read as one batch, those before an error event first", async () => {
    const batches: unknown[][] = [];
    const read = (async () => {
      const response = responseOf([
        'data: {"n":1}\n\ndata: {"n":2}\n\n',
        'data: {"n":3}\n\nevent: error\ndata: {"message":"bad"}\n\n',
      ]);
      for await (const batch of sseChunks(response, undefined)) batches.push(batch);
    })();
    await expect(read).rejects.toMatchObject({ error: { message: "bad" } });
    expect(batches).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 3 }]]);
  });

  it("throws an error payload or event as the SDK does, and unparsable JSON as a SyntaxError", async () => {
    await expect(collect(responseOf(['data: {"error":{"message":"overloaded"}}\n\n']))).rejects.toMatchObject({
      error: { message: "overloaded" },
    });
    await expect(collect(responseOf(['event: error\ndata: {"message":"bad"}\n\n']))).rejects.toMatchObject({
      error: { message: "bad" },
    });
    await expect(collect(responseOf(["data: {nope\n\n"]))).rejects.toBeInstanceOf(SyntaxError);
  });
});
