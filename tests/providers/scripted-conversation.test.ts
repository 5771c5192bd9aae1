/**
 * One scripted conversation (text, two parallel tool calls, their results, final text) runs
 * through each provider's real SDK against its fake server, and yields equivalent responses.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LLMResponse, ModelRequest, ToolDefinition, ViewMessage } from "../../src/providers/model-provider.js";
import type { FakeModelServer, FakeToolCall } from "../fakes/model-fake-server.js";
import { apiKey, collect, type ProviderCase, providerCases } from "./provider-harness.js";

const tools: ToolDefinition[] = [
  {
    name: "notes__add",
    description: "Add a note.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "shell_cmd",
    description: "Run a command without a shell.",
    inputSchema: {
      type: "object",
      properties: { command: { type: "string" }, args: { type: "array", items: { type: "string" } } },
    },
  },
];

const system = "You are alice, a careful release engineer.";
const question: ViewMessage = { role: "user", text: "ana: @alice note x, then list the files" };

/** The calls as each wire protocol carries them: ids where the API has them, raw extras. */
function scriptedCalls(type: ProviderCase["type"]): FakeToolCall[] {
  const gemini = type === "google";
  return [
    {
      ...(gemini ? {} : { id: type === "openai" ? "call_A1" : "toolu_A1" }),
      name: "notes__add",
      argumentChunks: ['{"te', 'xt":', '"x"}'],
      ...(type === "openai" ? { extra: { extra_content: { google: { thought_signature: "opaque-1" } } } } : {}),
      ...(gemini ? { extra: { thoughtSignature: "sig-from-gemini" } } : {}),
    },
    {
      ...(gemini ? {} : { id: type === "openai" ? "call_B2" : "toolu_B2" }),
      name: "shell_cmd",
      argumentChunks: ['{"command":"ls",', '"args":["-la"]}'],
    },
  ];
}

/** What every provider must answer, ids and provider fields aside. */
const expectedFirst = {
  text: "I'll do both.",
  toolCalls: [
    { name: "notes__add", argumentsJson: '{"text":"x"}' },
    { name: "shell_cmd", argumentsJson: '{"command":"ls","args":["-la"]}' },
  ],
  usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 },
  finishReason: "tool-calls",
};
const expectedSecond = {
  text: "Done: note added, 3 files.",
  toolCalls: [],
  usage: { inputTokens: 210, outputTokens: 12, cachedInputTokens: 100 },
  finishReason: "stop",
};

/** Providers must not change what they are given (the stored history behind it). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function neutral(response: LLMResponse) {
  return {
    text: response.text,
    toolCalls: response.toolCalls.map(({ name, argumentsJson }) => ({ name, argumentsJson })),
    usage: response.usage,
    finishReason: response.finishReason,
  };
}

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Runs the two steps; returns both responses and the second request the SDK sent. */
async function runConversation(testCase: ProviderCase) {
  fake = await testCase.start({
    apiKey,
    steps: [
      {
        type: "reply",
        text: ["I'll ", "do both."],
        toolCalls: scriptedCalls(testCase.type),
        usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 },
        reasoning: { id: "rs_1", encryptedContent: "encrypted-thoughts" },
      },
      {
        type: "reply",
        text: ["Done: ", "note added, ", "3 files."],
        usage: { inputTokens: 210, outputTokens: 12, cachedInputTokens: 100 },
      },
    ],
  });
  const provider = testCase.create(fake);
  const first: ModelRequest = deepFreeze({ model: testCase.model, system, messages: [question], tools });
  const one = await collect(provider, first);
  const [noteCall, shellCall] = one.response.toolCalls;
  if (!noteCall || !shellCall) throw new Error("expected two tool calls");
  const second: ModelRequest = deepFreeze({
    ...first,
    messages: [
      question,
      {
        role: "assistant",
        text: one.response.text,
        toolCalls: one.response.toolCalls,
        origin: { provider: provider.name, model: testCase.model },
        ...(one.response.providerFields === undefined ? {} : { providerFields: one.response.providerFields }),
      },
      { role: "tool", toolCallId: noteCall.id, toolName: "notes__add", text: "note 1 added" },
      { role: "tool", toolCallId: shellCall.id, toolName: "shell_cmd", text: "exit 0\na\nb\nc" },
    ],
  });
  const two = await collect(provider, second);
  return { one, two, secondBody: fake.requests[1]?.body as Record<string, unknown> };
}

describe.each(providerCases)("scripted conversation through $label", (testCase) => {
  it("yields the same neutral responses and streams text, calls, usage, finish in order", async () => {
    const { one, two } = await runConversation(testCase);
    expect(neutral(one.response)).toEqual(expectedFirst);
    expect(neutral(two.response)).toEqual(expectedSecond);
    expect(one.parts.map((part) => part.type)).toEqual([
      "text-delta",
      "text-delta",
      "tool-call",
      "tool-call",
      "usage",
      "finish",
    ]);
    expect(two.parts.filter((part) => part.type === "text-delta").map((part) => part.text)).toEqual([
      "Done: ",
      "note added, ",
      "3 files.",
    ]);
    const ids = one.response.toolCalls.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(fake?.pending).toBe(0);
  });

  it("sends the tool calls and both results back in its own wire format", async () => {
    const { one, secondBody } = await runConversation(testCase);
    const [noteCall, shellCall] = one.response.toolCalls;
    switch (testCase.label) {
      case "openai-responses": {
        // Stateless: everything is sent again, the reasoning item back as it came.
        expect(one.response.providerFields).toEqual({
          "openai-responses": {
            reasoning: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "encrypted-thoughts" }],
          },
        });
        expect(secondBody.instructions).toBe(system);
        expect(secondBody.store).toBe(false);
        expect(secondBody.include).toEqual(["reasoning.encrypted_content"]);
        expect(secondBody.input).toEqual([
          { role: "user", content: question.text },
          { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "encrypted-thoughts" },
          { role: "assistant", content: "I'll do both." },
          { type: "function_call", call_id: "call_A1", name: "notes__add", arguments: '{"text":"x"}' },
          {
            type: "function_call",
            call_id: "call_B2",
            name: "shell_cmd",
            arguments: '{"command":"ls","args":["-la"]}',
          },
          { type: "function_call_output", call_id: "call_A1", output: "note 1 added" },
          { type: "function_call_output", call_id: "call_B2", output: "exit 0\na\nb\nc" },
        ]);
        expect((secondBody.tools as Record<string, unknown>[]).map((tool) => tool.name)).toEqual([
          "notes__add",
          "shell_cmd",
        ]);
        break;
      }
      case "openai": {
        const messages = secondBody.messages as Record<string, unknown>[];
        expect(messages[0]).toEqual({ role: "system", content: system });
        expect(messages[1]).toEqual({ role: "user", content: question.text });
        expect(messages[2]).toEqual({
          role: "assistant",
          content: "I'll do both.",
          tool_calls: [
            {
              id: "call_A1",
              type: "function",
              function: { name: "notes__add", arguments: '{"text":"x"}' },
              extra_content: { google: { thought_signature: "opaque-1" } },
            },
            {
              id: "call_B2",
              type: "function",
              function: { name: "shell_cmd", arguments: '{"command":"ls","args":["-la"]}' },
            },
          ],
        });
        expect(messages.slice(3)).toEqual([
          { role: "tool", tool_call_id: "call_A1", content: "note 1 added" },
          { role: "tool", tool_call_id: "call_B2", content: "exit 0\na\nb\nc" },
        ]);
        expect(secondBody.stream_options).toEqual({ include_usage: true });
        expect((secondBody.tools as unknown[]).length).toBe(2);
        break;
      }
      case "anthropic": {
        expect(secondBody.system).toEqual([{ type: "text", text: system, cache_control: { type: "ephemeral" } }]);
        const sentTools = secondBody.tools as Record<string, unknown>[];
        expect(sentTools.map((tool) => tool.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
        expect(sentTools[0]?.input_schema).toEqual(tools[0]?.inputSchema);
        expect(secondBody.messages).toEqual([
          { role: "user", content: [{ type: "text", text: question.text }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "I'll do both." },
              { type: "tool_use", id: "toolu_A1", name: "notes__add", input: { text: "x" } },
              { type: "tool_use", id: "toolu_B2", name: "shell_cmd", input: { command: "ls", args: ["-la"] } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_A1", content: "note 1 added" },
              { type: "tool_result", tool_use_id: "toolu_B2", content: "exit 0\na\nb\nc" },
            ],
          },
        ]);
        expect(typeof secondBody.max_tokens).toBe("number");
        break;
      }
      case "google": {
        // Gemini gave no ids: ours are made, kept, and never sent back as Gemini's own.
        expect(noteCall?.id).toMatch(/^gemini_call_/);
        expect(noteCall?.providerFields).toEqual({ google: { thoughtSignature: "sig-from-gemini" } });
        expect(shellCall?.providerFields).toBeUndefined();
        expect(secondBody.systemInstruction).toEqual({ role: "user", parts: [{ text: system }] });
        expect(secondBody.contents).toEqual([
          { role: "user", parts: [{ text: question.text }] },
          {
            role: "model",
            parts: [
              { text: "I'll do both." },
              { functionCall: { name: "notes__add", args: { text: "x" } }, thoughtSignature: "sig-from-gemini" },
              { functionCall: { name: "shell_cmd", args: { command: "ls", args: ["-la"] } } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "notes__add", response: { output: "note 1 added" } } },
              { functionResponse: { name: "shell_cmd", response: { output: "exit 0\na\nb\nc" } } },
            ],
          },
        ]);
        const declarations = (secondBody.tools as { functionDeclarations: Record<string, unknown>[] }[])[0]
          ?.functionDeclarations;
        expect(declarations?.map((declaration) => declaration.name)).toEqual(["notes__add", "shell_cmd"]);
        expect(declarations?.[0]?.parametersJsonSchema).toEqual(tools[0]?.inputSchema);
        break;
      }
    }
  });
});

describe("the three providers agree", () => {
  it("on both responses of the scripted conversation", async () => {
    const results: unknown[] = [];
    for (const testCase of providerCases) {
      const { one, two } = await runConversation(testCase);
      results.push([neutral(one.response), neutral(two.response)]);
      await fake?.close();
      fake = undefined;
    }
    expect(results).toHaveLength(4);
    for (const result of results) expect(result).toEqual(results[0]);
  });
});
