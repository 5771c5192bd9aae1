import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "@google/genai";
import { describe, expect, it } from "vitest";
import { modelStreamFetch } from "../../http/node-http-fetch.js";
import { geminiChunks } from "./gemini-chunks.js";

/** A response whose body arrives in these pieces (a web stream, as the global fetch gives). */
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

/** Every chunk read, then what was thrown (undefined: none). */
async function readAll(response: Response): Promise<{ chunks: unknown[]; error: unknown }> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of geminiChunks(response, undefined)) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (words: string) => ({ candidates: [{ content: { role: "model", parts: [{ text: words }] } }] });
const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`;

describe("geminiChunks", () => {
  it("reads each data event's JSON, whatever the reads' boundaries and line ends", async () => {
    const stream = `${frame(text("one "))}data: ${JSON.stringify(text("two "))}\n\n${frame({ ...text("three"), usageMetadata: { promptTokenCount: 3 } })}`;
    const cuts = [1, 7, 40, stream.length - 3];
    const pieces = cuts.map((at, index) => stream.slice(index === 0 ? 0 : (cuts[index - 1] ?? 0), at));
    pieces.push(stream.slice(cuts.at(-1)));
    const { chunks, error } = await readAll(responseOf(pieces));
    expect(error).toBeUndefined();
    expect(chunks).toEqual([text("one "), text("two "), { ...text("three"), usageMetadata: { promptTokenCount: 3 } }]);
  });

  it("an error chunk with an HTTP code is the SDK's ApiError, after the chunks before it", async () => {
    const failure = { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "quota" } };
    const { chunks, error } = await readAll(responseOf([frame(text("so far")), frame(failure), frame(text("never"))]));
    expect(chunks).toEqual([text("so far")]);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).message).toBe(`got status: RESOURCE_EXHAUSTED. ${JSON.stringify(failure)}`);
  });

  it("refuses an event the end cut off, and a chunk that is not JSON, as the SDK did", async () => {
    const cut = await readAll(responseOf([frame(text("whole")), `data: ${JSON.stringify(text("cut"))}`]));
    expect(cut.chunks).toEqual([text("whole")]);
    expect(String(cut.error)).toContain("Incomplete JSON segment at the end");
    const garbled = await readAll(responseOf([frame(text("whole")), "data: {not json\n\n"]));
    expect(garbled.chunks).toEqual([text("whole")]);
    expect(String(garbled.error)).toContain("exception parsing stream chunk {not json");
  });

  it("reads a stream modelStreamFetch answered from its socket, every chunk in order", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      let sent = 0;
      const timer = setInterval(() => {
        response.write(frame(text(`w${sent} `)));
        sent += 1;
        if (sent === 30) {
          clearInterval(timer);
          response.end();
        }
      }, 2);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await modelStreamFetch(`http://127.0.0.1:${port}/stream`, { method: "POST", body: "{}" });
      const { chunks, error } = await readAll(response);
      expect(error).toBeUndefined();
      expect(chunks).toEqual(Array.from({ length: 30 }, (_, index) => text(`w${index} `)));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
