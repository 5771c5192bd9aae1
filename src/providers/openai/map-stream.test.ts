import { describe, expect, it } from "vitest";
import type { ProviderError } from "../../errors/roundtable-error.js";
import type { StreamPart } from "../model-provider.js";
import { convertOpenAIRequest } from "./convert-request.js";
import { mapOpenAIStream } from "./map-stream.js";

/** Each chunk as a batch of its own (as if each came in a network read of its own). */
async function* from(chunks: unknown[]) {
  for (const chunk of chunks) yield [chunk];
}

async function parts(chunks: unknown[]): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of mapOpenAIStream(from(chunks), "compat", undefined, () => "generated")) out.push(part);
  return out;
}

const delta = (value: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: value, finish_reason: finish }],
});

describe("mapOpenAIStream with what OpenAI-compatible servers send", () => {
  it("takes whole tool calls without index or id (Ollama style), and a `stop` that carried calls", async () => {
    const out = await parts([
      delta({
        tool_calls: [
          { function: { name: "notes__add", arguments: '{"text":"a"}' } },
          { id: "x2", function: { name: "shell_cmd", arguments: "" } },
        ],
      }),
      delta({}, "stop"),
    ]);
    const finish = out.at(-1);
    expect(finish?.type === "finish" && finish.response).toEqual({
      text: "",
      toolCalls: [
        { id: "generated", name: "notes__add", argumentsJson: '{"text":"a"}' },
        { id: "x2", name: "shell_cmd", argumentsJson: "{}" },
      ],
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      finishReason: "tool-calls",
    });
  });

  it("keeps a name repeated in later pieces once, and extra call fields raw", async () => {
    const out = await parts([
      delta({
        tool_calls: [
          {
            index: 0,
            id: "c",
            type: "function",
            function: { name: "notes__add", arguments: '{"te' },
            extra_content: { s: 1 },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { name: "notes__add", arguments: 'xt":1}' } }] }),
      delta({}, "tool_calls"),
    ]);
    expect(out.find((part) => part.type === "tool-call")).toEqual({
      type: "tool-call",
      call: {
        id: "c",
        name: "notes__add",
        argumentsJson: '{"text":1}',
        providerFields: { openai: { extra_content: { s: 1 } } },
      },
    });
  });

  it("turns a refusal with no answer into provider.content-refused", async () => {
    const error = await parts([delta({ refusal: "I can't help with that." }), delta({}, "stop")]).catch(
      (caught: unknown) => caught,
    );
    expect((error as ProviderError).code).toBe("provider.content-refused");
  });

  it("calls a chunk of the wrong shape malformed", async () => {
    const error = await parts([{ choices: "nope" }]).catch((caught: unknown) => caught);
    expect((error as ProviderError).code).toBe("provider.malformed");
  });

  it("gives the text pieces of one batch (one network read) as one part, the text before a failing chunk first", async () => {
    const seen: StreamPart[] = [];
    async function* batches() {
      yield [delta({ content: "Hel" }), delta({ content: "lo" }), delta({ content: ", " })];
      yield [delta({ content: "wor" }), delta({ content: "ld" }), delta({}, "stop")];
    }
    for await (const part of mapOpenAIStream(batches(), "compat", undefined, () => "generated")) seen.push(part);
    expect(seen.filter((part) => part.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hello, " },
      { type: "text-delta", text: "world" },
    ]);
    expect(seen.at(-1)).toMatchObject({ type: "finish", response: { text: "Hello, world", finishReason: "stop" } });

    const before: StreamPart[] = [];
    async function* failing() {
      yield [delta({ content: "partial " }), delta({ content: "text" }), { choices: "nope" }];
    }
    const error = await (async () => {
      for await (const part of mapOpenAIStream(failing(), "compat", undefined, () => "generated")) before.push(part);
    })().catch((caught: unknown) => caught);
    expect(before).toEqual([{ type: "text-delta", text: "partial text" }]);
    expect((error as ProviderError).code).toBe("provider.malformed");
  });
});

describe("convertOpenAIRequest", () => {
  it("leaves out an empty system prompt, tools when none, and sends assistant calls with null content", () => {
    const body = convertOpenAIRequest(
      {
        model: "m",
        system: " ",
        messages: [{ role: "assistant", text: "", toolCalls: [{ id: "c", name: "t", argumentsJson: "{}" }] }],
        tools: [],
        temperature: 0.2,
        maxOutputTokens: 10,
      },
      { maxTokensField: "max_completion_tokens" },
    );
    expect(body).toEqual({
      model: "m",
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{}" } }],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_completion_tokens: 10,
    });
  });
});
