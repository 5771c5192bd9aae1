import type { Content } from "@google/genai";
import { describe, expect, it } from "vitest";
import type { ProviderError } from "../../errors/roundtable-error.js";
import type { StreamPart } from "../model-provider.js";
import { carriedOverSignature, conversationContinues, convertGoogleRequest } from "./convert-request.js";
import { mapGoogleStream } from "./map-stream.js";

describe("convertGoogleRequest", () => {
  it("sends Gemini's own ids back, never ours, and gives Gemini 3 a signature for carried-over calls", () => {
    const request = convertGoogleRequest({
      model: "gemini-3-pro-preview",
      system: "",
      messages: [
        {
          role: "assistant",
          text: "",
          toolCalls: [
            { id: "gemini_call_abc", name: "a", argumentsJson: "{}" },
            {
              id: "from-gemini",
              name: "b",
              argumentsJson: '{"x":1}',
              providerFields: { google: { thoughtSignature: "s2" } },
            },
          ],
        },
        { role: "tool", toolCallId: "gemini_call_abc", toolName: "a", text: "ra" },
        { role: "tool", toolCallId: "from-gemini", toolName: "b", text: "rb" },
      ],
      tools: [],
    });
    expect(request.config.systemInstruction).toBeUndefined();
    expect(request.contents).toEqual([
      { role: "user", parts: [{ text: conversationContinues }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "a", args: {} }, thoughtSignature: carriedOverSignature },
          { functionCall: { name: "b", args: { x: 1 }, id: "from-gemini" }, thoughtSignature: "s2" },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "a", response: { output: "ra" } } },
          { functionResponse: { name: "b", response: { output: "rb" }, id: "from-gemini" } },
        ],
      },
    ]);
    expect(request.config.automaticFunctionCalling).toEqual({ disable: true });
  });

  it("puts a tool's images in its function response on Gemini 3, and after the run of responses before it", () => {
    const png = { mediaType: "image/png", base64: "iVBORw0KGgo=" };
    const view = (model: string) =>
      convertGoogleRequest({
        model,
        system: "",
        messages: [
          {
            role: "user",
            text: "ana: chart both",
          },
          {
            role: "assistant",
            text: "",
            toolCalls: [
              { id: "gemini_call_1", name: "a", argumentsJson: "{}" },
              { id: "gemini_call_2", name: "b", argumentsJson: "{}" },
            ],
          },
          { role: "tool", toolCallId: "gemini_call_1", toolName: "a", text: "ra", images: [png] },
          { role: "tool", toolCallId: "gemini_call_2", toolName: "b", text: "rb" },
        ],
        tools: [],
      }).contents;
    const lastTurn = (model: string) => (view(model) as Content[]).at(-1);
    const inline = { inlineData: { mimeType: "image/png", data: png.base64 } };
    expect(lastTurn("gemini-3-pro-preview")).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "a", response: { output: "ra" }, parts: [inline] } },
        { functionResponse: { name: "b", response: { output: "rb" } } },
      ],
    });
    expect(lastTurn("gemini-2.5-flash")).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "a", response: { output: "ra" } } },
        { functionResponse: { name: "b", response: { output: "rb" } } },
        inline,
      ],
    });
  });
});

async function* from(chunks: unknown[]) {
  for (const chunk of chunks) yield chunk;
}

async function run(chunks: unknown[]): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of mapGoogleStream(from(chunks), "google", undefined, () => "gemini_call_1")) out.push(part);
  return out;
}

describe("mapGoogleStream", () => {
  it("does not show thought summaries and keeps a text part's signature for the next request", async () => {
    const out = await run([
      { candidates: [{ content: { parts: [{ text: "pondering", thought: true }] } }] },
      { candidates: [{ content: { parts: [{ text: "Answer.", thoughtSignature: "t-sig" }] }, finishReason: "STOP" }] },
    ]);
    expect(out.filter((part) => part.type === "text-delta")).toEqual([{ type: "text-delta", text: "Answer." }]);
    const finish = out.at(-1);
    expect(finish?.type === "finish" && finish.response.providerFields).toEqual({
      google: { thoughtSignature: "t-sig" },
    });
  });

  it("reports a blocked prompt as provider.content-refused", async () => {
    const error = await run([{ promptFeedback: { blockReason: "SAFETY" } }]).catch((caught: unknown) => caught);
    expect((error as ProviderError).code).toBe("provider.content-refused");
  });
});
