import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { ModelRequest, ViewImage, ViewMessage } from "../model-provider.js";
import { ownFields } from "../provider-fields.js";
import { argumentsObject } from "../tool-arguments.js";

/** Said in place of a missing first user message (Anthropic wants the first message from the user). */
export const conversationContinues = "[the conversation continues]";

/**
 * A neutral request view as an Anthropic Messages request. The stable prefix is cached: a
 * `cache_control` breakpoint on the last tool definition and one on the system prompt (the
 * cache covers tools, then system, in that order). Consecutive messages of one role are
 * merged (tool results of one step become one user message), a tool's images go inside its
 * `tool_result` after its text, empty text is left out
 * (the API refuses empty text blocks), and a view that starts with the assistant gets a
 * short user message first.
 */
export function convertAnthropicRequest(request: ModelRequest, maxTokens: number): MessageCreateParamsStreaming {
  const system: TextBlockParam[] =
    request.system.trim() === "" ? [] : [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }];
  const tools: Tool[] = request.tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.inputSchema } as Tool["input_schema"],
    ...(index === request.tools.length - 1 ? { cache_control: { type: "ephemeral" as const } } : {}),
  }));
  return {
    model: request.model,
    max_tokens: maxTokens,
    stream: true,
    messages: convertMessages(request.messages),
    ...(system.length === 0 ? {} : { system }),
    ...(tools.length === 0 ? {} : { tools }),
    ...(request.temperature === undefined ? {} : { temperature: Math.min(1, request.temperature) }),
  };
}

type Role = "user" | "assistant";

function convertMessages(messages: ViewMessage[]): MessageParam[] {
  const out: { role: Role; content: ContentBlockParam[] }[] = [];
  const push = (role: Role, blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        push("user", [
          ...(message.documents ?? []).map(
            (document): ContentBlockParam => ({
              type: "document",
              source: { type: "base64", media_type: document.mediaType, data: document.base64 },
            }),
          ),
          ...(message.images ?? []).map(imageBlock),
          ...textBlocks(message.text),
        ]);
        break;
      case "tool": {
        // A tool's images go inside its result, after its text (a `tool_result` takes both).
        const text = message.text === "" ? "(empty)" : message.text;
        const images = message.images ?? [];
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: images.length === 0 ? text : [{ type: "text", text }, ...images.map(imageBlock)],
          },
        ]);
        break;
      }
      case "assistant":
        push("assistant", [
          ...thinkingBlocks(message.providerFields),
          ...textBlocks(message.text),
          ...message.toolCalls.map(
            (call): ContentBlockParam => ({
              type: "tool_use",
              id: call.id,
              name: call.name,
              input: argumentsObject(call.argumentsJson),
            }),
          ),
        ]);
        break;
    }
  }
  if (out[0]?.role !== "user") out.unshift({ role: "user", content: [{ type: "text", text: conversationContinues }] });
  return out;
}

/** An image as a base64 `image` block (PNG, JPEG, GIF or WebP: what the view passes on). */
function imageBlock(image: ViewImage): ImageBlockParam {
  return {
    type: "image",
    source: {
      type: "base64",
      media_type: image.mediaType as "image/png" | "image/jpeg" | "image/gif" | "image/webp",
      data: image.base64,
    },
  };
}

function textBlocks(text: string): ContentBlockParam[] {
  return text.trim() === "" ? [] : [{ type: "text", text }];
}

/** Thinking blocks the same model produced come back first, signatures intact. */
function thinkingBlocks(providerFields: Record<string, unknown> | undefined): ContentBlockParam[] {
  const blocks = ownFields(providerFields, "anthropic")?.thinking;
  if (!Array.isArray(blocks)) return [];
  return blocks.filter(
    (block): block is ContentBlockParam =>
      typeof block === "object" &&
      block !== null &&
      ((block as { type?: unknown }).type === "thinking" || (block as { type?: unknown }).type === "redacted_thinking"),
  );
}
