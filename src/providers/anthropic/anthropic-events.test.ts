import { APIError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { anthropicEvents } from "./anthropic-events.js";

/** A response whose body arrives in these pieces, read through its web stream. */
function eventStream(pieces: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece));
        controller.close();
      },
    }),
    { headers: { "content-type": "text/event-stream", "request-id": "req_1" } },
  );
}

async function readAll(response: Response, signal?: AbortSignal): Promise<{ events: unknown[]; error: unknown }> {
  const events: unknown[] = [];
  try {
    for await (const event of anthropicEvents(response, signal)) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const delta = (text: string) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
const frame = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

describe("anthropicEvents", () => {
  it("yields each named event's JSON, pings and unnamed or empty events left out, reads split anywhere", async () => {
    const stream = [
      frame("message_start", { type: "message_start", message: { id: "msg_1" } }),
      frame("ping", { type: "ping" }),
      `data: {"type":"unnamed"}\n\n`,
      "event: content_block_delta\ndata:\n\n",
      frame("content_block_delta", delta("Hel")),
      frame("content_block_delta", delta("lo")),
      frame("message_stop", { type: "message_stop" }),
    ].join("");
    const pieces = [stream.slice(0, 5), stream.slice(5, 90), stream.slice(90, 91), stream.slice(91)];
    const { events, error } = await readAll(eventStream(pieces));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "message_start", message: { id: "msg_1" } },
      delta("Hel"),
      delta("lo"),
      { type: "message_stop" },
    ]);
  });

  it("an error event is the SDK's APIError with its type and the response's headers, after what came before", async () => {
    const failure = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    const { events, error } = await readAll(
      eventStream([frame("content_block_delta", delta("so far")), frame("error", failure), frame("message_stop", {})]),
    );
    expect(events).toEqual([delta("so far")]);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).type).toBe("overloaded_error");
    expect((error as APIError).error).toEqual(failure);
    expect((error as APIError).headers?.get("request-id")).toBe("req_1");
  });

  it("bad JSON is a SyntaxError; a stop by the caller's signal ends the stream quietly", async () => {
    const bad = await readAll(
      eventStream([frame("content_block_delta", delta("a")), "event: message_delta\ndata: {nope\n\n"]),
    );
    expect(bad.events).toEqual([delta("a")]);
    expect(bad.error).toBeInstanceOf(SyntaxError);
    const stop = new AbortController();
    stop.abort();
    const stopped = await readAll(eventStream([frame("content_block_delta", delta("a"))]), stop.signal);
    expect(stopped).toEqual({ events: [], error: undefined });
  });
});
