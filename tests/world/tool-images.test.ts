/**
 * An image a tool gives (an MCP `image` content) goes back to the model with the tool's result,
 * in each API's own shape, as each provider's fake receives it from the real SDK: Anthropic
 * `image` blocks inside the `tool_result`, Gemini `inlineData` parts after the function response
 * (in the same user turn), OpenAI Chat Completions a `user` message with `image_url` parts right
 * after the tool messages (a tool message is text only), the Responses API `input_image` in the
 * `function_call_output`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
import { type ProviderCase, providerCases } from "../providers/provider-harness.js";
import { createHarness, type Harness } from "./harness.js";

let fake: FakeModelServer | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await fake?.close();
  fake = undefined;
});

const dataUrl = `data:image/png;base64,${onePixelPng}`;

/** The part of the second request that carries the tool's result and its image. */
function imageTurnOf(label: string, body: Record<string, unknown>): unknown {
  switch (label) {
    case "openai": {
      const messages = body.messages as { role: string }[];
      const tool = messages.findIndex((message) => message.role === "tool");
      return messages.slice(tool, tool + 2);
    }
    case "openai-responses":
      return (body.input as { type?: string }[]).find((item) => item.type === "function_call_output");
    case "anthropic":
      return (body.messages as { role: string }[]).at(-1);
    default:
      return (body.contents as { role: string }[]).at(-1);
  }
}

/** What each API should carry, `text` being the tool's result as the model reads it. */
function expectedImageTurn(label: string, text: string): unknown {
  switch (label) {
    case "openai":
      return [
        { role: "tool", tool_call_id: "call_pic", content: text },
        {
          role: "user",
          content: [
            { type: "text", text: "[images from notes__picture]" },
            { type: "image_url", image_url: { url: dataUrl } },
          ],
        },
      ];
    case "openai-responses":
      return {
        type: "function_call_output",
        call_id: "call_pic",
        output: [
          { type: "input_text", text },
          { type: "input_image", image_url: dataUrl, detail: "auto" },
        ],
      };
    case "anthropic":
      return {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_pic",
            content: [
              { type: "text", text },
              { type: "image", source: { type: "base64", media_type: "image/png", data: onePixelPng } },
            ],
          },
        ],
      };
    default:
      return {
        parts: [
          { functionResponse: { name: "notes__picture", response: { output: text }, id: "call_pic" } },
          { inlineData: { mimeType: "image/png", data: onePixelPng } },
        ],
        role: "user",
      };
  }
}

/** The tool's result as the model reads it: its text, then the line naming what was posted. */
const resultText = "a dot\n[image image/png, 68 bytes]\n[files posted to the chat: image-1.png (image/png, 68 B)]";

/** Run one agent of `providerCase` whose first call is `call`, and return the second request's body. */
async function secondRequest(
  providerCase: ProviderCase,
  call: { name: string; args: string },
  options: { tools: string[]; toolsConfig: Record<string, unknown>; agentConfig?: Record<string, unknown> },
) {
  fake = await providerCase.start({
    steps: [
      { type: "reply", toolCalls: [{ id: "call_pic", name: call.name, argumentChunks: [call.args] }] },
      { type: "reply", text: ["Seen."] },
    ],
  });
  harness = await createHarness({
    agents: [
      {
        name: "alice",
        provider: providerCase.create(fake),
        providerName: providerCase.label,
        providerType: providerCase.type,
        tools: options.tools,
      },
    ],
    tools: options.toolsConfig,
    agentConfig: { alice: options.agentConfig ?? {} },
  });
  await harness.say("@alice look");
  await harness.idle();
  expect(fake.requests).toHaveLength(2);
  return fake.requests[1]?.body as Record<string, unknown>;
}

const picture = { name: "notes__picture", args: "{}" };
const notesTools = {
  tools: ["notes__*"],
  toolsConfig: { mcpServers: { notes: notesServerCommand() }, approval: { "notes__*": "never" } },
};

describe.each(providerCases)("$label: a tool's image goes back to the model", (providerCase) => {
  it("with the tool's result, in the API's own shape", async () => {
    const body = await secondRequest(providerCase, picture, notesTools);
    expect(harness?.channel.messages().map((message) => message.text)).toContain("Seen.");
    expect(JSON.stringify(imageTurnOf(providerCase.label, body))).toBe(
      JSON.stringify(expectedImageTurn(providerCase.label, resultText)),
    );
  });

  it("not for an agent without image input (vision: false): only the line naming it", async () => {
    const body = await secondRequest(providerCase, picture, { ...notesTools, agentConfig: { vision: false } });
    expect(JSON.stringify(body)).not.toContain(onePixelPng);
    expect(JSON.stringify(body)).toContain(JSON.stringify(resultText).slice(1, -1));
  });
});

const caseOf = (label: string) => providerCases.find((each) => each.label === label) as ProviderCase;

describe("a tool's images, more ways", () => {
  it("an image a shell command left in outbox/ reaches Anthropic inside the tool_result", async () => {
    const script = `mkdir -p outbox && printf '%s' '${onePixelPng}' | base64 -d > outbox/dot.png && echo written`;
    const body = await secondRequest(
      caseOf("anthropic"),
      { name: "shell_cmd", args: JSON.stringify({ command: "sh", args: ["-c", script] }) },
      { tools: ["shell_cmd"], toolsConfig: { approval: { shell_cmd: "never" } } },
    );
    const turn = imageTurnOf("anthropic", body) as { content: { content: { type: string }[] }[] };
    const content = turn.content[0]?.content ?? [];
    expect(content.map((block) => block.type)).toEqual(["text", "image"]);
    expect(content[1]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: onePixelPng },
    });
  });

  it("Gemini 3 gets the image inside the function response (parts)", async () => {
    const body = await secondRequest(caseOf("google"), picture, {
      ...notesTools,
      agentConfig: { model: "gemini-3-pro-preview" },
    });
    expect(JSON.stringify(imageTurnOf("google", body))).toBe(
      JSON.stringify({
        parts: [
          {
            functionResponse: {
              name: "notes__picture",
              response: { output: resultText },
              id: "call_pic",
              parts: [{ inlineData: { mimeType: "image/png", data: onePixelPng } }],
            },
          },
        ],
        role: "user",
      }),
    );
  });
});
