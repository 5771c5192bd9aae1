import type OpenAI from "openai";
import type { ModelRequest, ModelToolCall, ViewImage, ViewMessage } from "../model-provider.js";
import { ownFields } from "../provider-fields.js";

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;
type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ChatContentPart = OpenAI.Chat.ChatCompletionContentPart;

export interface OpenAIRequestOptions {
  /**
   * api.openai.com takes `max_completion_tokens` (its reasoning models refuse `max_tokens`);
   * OpenAI-compatible servers (Ollama, vLLM, LiteLLM) know `max_tokens`.
   */
  maxTokensField: "max_tokens" | "max_completion_tokens";
}

/**
 * A neutral request view as Chat Completions: the system prompt as the first `system`
 * message, the agent's own messages as `assistant` (with their tool calls), everyone else's
 * as `user` (the view already starts their text with the sender's name), tool results as
 * `tool` messages. A tool message takes only text, so the images tools gave follow the run of
 * tool messages as one `user` message (`[images from <tool>]`, then its `image_url` parts).
 * Usage is asked for in the stream.
 */
export function convertOpenAIRequest(request: ModelRequest, options: OpenAIRequestOptions): ChatParams {
  const messages: ChatMessage[] = [];
  if (request.system.trim() !== "") messages.push({ role: "system", content: request.system });
  // A tool message is text only: the images of a run of tool results follow it as one user message.
  let toolImages: ChatContentPart[] = [];
  const flushToolImages = () => {
    if (toolImages.length > 0) messages.push({ role: "user", content: toolImages });
    toolImages = [];
  };
  for (const message of request.messages) {
    if (message.role !== "tool") flushToolImages();
    // An empty answer with no calls says nothing, and some compatible servers refuse it.
    if (message.role === "assistant" && message.text === "" && message.toolCalls.length === 0) continue;
    messages.push(convertMessage(message));
    if (message.role === "tool" && (message.images ?? []).length > 0) {
      toolImages.push({ type: "text", text: `[images from ${message.toolName}]` });
      toolImages.push(...(message.images ?? []).map(imagePart));
    }
  }
  flushToolImages();
  return {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { [options.maxTokensField]: request.maxOutputTokens }),
  };
}

function convertMessage(message: ViewMessage): ChatMessage {
  switch (message.role) {
    case "user":
      if ((message.images ?? []).length === 0 && (message.documents ?? []).length === 0)
        return { role: "user", content: message.text };
      return {
        role: "user",
        content: [
          { type: "text", text: message.text },
          ...(message.images ?? []).map(imagePart),
          ...(message.documents ?? []).map((document) => ({
            type: "file" as const,
            file: { filename: document.name, file_data: `data:${document.mediaType};base64,${document.base64}` },
          })),
        ],
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.text };
    case "assistant":
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.text };
      return {
        role: "assistant",
        content: message.text === "" ? null : message.text,
        tool_calls: message.toolCalls.map(convertToolCall),
      };
  }
}

function imagePart(image: ViewImage): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.base64}` } };
}

/** Extra fields the server sent with a call (e.g. Gemini's `extra_content`) go back as they came. */
function convertToolCall(call: ModelToolCall): OpenAI.Chat.ChatCompletionMessageFunctionToolCall {
  const extra = ownFields(call.providerFields, "openai") ?? {};
  return {
    ...extra,
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.argumentsJson },
  };
}
