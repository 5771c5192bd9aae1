import { describe, expect, it } from "vitest";
import { convertAnthropicRequest, conversationContinues } from "./convert-request.js";

describe("convertAnthropicRequest", () => {
  it("starts with the user, merges one role's messages, leaves out empty text", () => {
    const body = convertAnthropicRequest(
      {
        model: "claude-opus-4-6",
        system: "",
        messages: [
          { role: "assistant", text: "Hello all.", toolCalls: [] },
          { role: "user", text: "ana: hi" },
          { role: "user", text: "bo: hey" },
          { role: "assistant", text: "  ", toolCalls: [{ id: "t1", name: "notes__add", argumentsJson: "not json" }] },
          { role: "tool", toolCallId: "t1", toolName: "notes__add", text: "" },
          { role: "user", text: "ana: and?" },
        ],
        tools: [{ name: "notes__add", description: "d", inputSchema: { properties: {} } }],
      },
      1024,
    );
    expect(body.system).toBeUndefined();
    expect(body.max_tokens).toBe(1024);
    expect(body.tools).toEqual([
      {
        name: "notes__add",
        description: "d",
        input_schema: { type: "object", properties: {} },
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: conversationContinues }] },
      { role: "assistant", content: [{ type: "text", text: "Hello all." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "ana: hi" },
          { type: "text", text: "bo: hey" },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "notes__add", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "(empty)" },
          { type: "text", text: "ana: and?" },
        ],
      },
    ]);
  });

  it("sends the model's own thinking blocks back first, signatures intact", () => {
    const thinking = [{ type: "thinking", thinking: "hmm", signature: "sig" }];
    const body = convertAnthropicRequest(
      {
        model: "claude-opus-4-6",
        system: "s",
        messages: [
          { role: "user", text: "q" },
          {
            role: "assistant",
            text: "a",
            toolCalls: [],
            providerFields: { anthropic: { thinking }, google: { thoughtSignature: "not ours" } },
          },
        ],
        tools: [],
      },
      10,
    );
    expect(body.messages[1]).toEqual({ role: "assistant", content: [...thinking, { type: "text", text: "a" }] });
  });
});
