import { describe, expect, it } from "vitest";
import { convertOpenAIRequest } from "./convert-request.js";

describe("convertOpenAIRequest", () => {
  it("follows a step's tool messages (text only) with one user message carrying the tools' images", () => {
    const png = { mediaType: "image/png", base64: "iVBORw0KGgo=" };
    const request = convertOpenAIRequest(
      {
        model: "gpt-4.1",
        system: "",
        messages: [
          { role: "user", text: "ana: chart both" },
          {
            role: "assistant",
            text: "",
            toolCalls: [
              { id: "c1", name: "a", argumentsJson: "{}" },
              { id: "c2", name: "b", argumentsJson: "{}" },
            ],
          },
          { role: "tool", toolCallId: "c1", toolName: "a", text: "ra", images: [png] },
          { role: "tool", toolCallId: "c2", toolName: "b", text: "rb", images: [png, png] },
          { role: "assistant", text: "Two charts.", toolCalls: [] },
        ],
        tools: [],
      },
      { maxTokensField: "max_tokens" },
    );
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${png.base64}` } };
    expect(request.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "ra" },
      { role: "tool", tool_call_id: "c2", content: "rb" },
      {
        role: "user",
        content: [
          { type: "text", text: "[images from a]" },
          image,
          { type: "text", text: "[images from b]" },
          image,
          image,
        ],
      },
      { role: "assistant", content: "Two charts." },
    ]);
  });
});
