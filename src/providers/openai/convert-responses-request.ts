import type OpenAI from "openai";
import type { ModelRequest, ViewMessage } from "../model-provider.js";
import { ownFields } from "../provider-fields.js";

type ResponsesParams = OpenAI.Responses.ResponseCreateParamsStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;

/** Reasoning models whose reasoning items must travel back (encrypted, since nothing is stored). */
function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model.replace(/^.*\//, ""));
}

/**
 * A neutral request view as a Responses API request (`api: responses`): the system prompt as
 * `instructions`, messages as input items, tool calls as `function_call` items and results as
 * `function_call_output` items (a result with images as a list: its text, then `input_image`s). Stateless (`store: false`): the whole view goes every time,
 * and a reasoning model's reasoning items come back encrypted and are sent back as they came.
 */
export function convertResponsesRequest(request: ModelRequest): ResponsesParams {
  const input: InputItem[] = [];
  for (const message of request.messages) input.push(...convertMessage(message));
  return {
    model: request.model,
    input,
    stream: true,
    store: false,
    ...(request.system.trim() === "" ? {} : { instructions: request.system }),
    ...(isReasoningModel(request.model) ? { include: ["reasoning.encrypted_content" as const] } : {}),
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
            strict: false,
          })),
        }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { max_output_tokens: request.maxOutputTokens }),
  };
}

function convertMessage(message: ViewMessage): InputItem[] {
  switch (message.role) {
    case "user":
      if ((message.images ?? []).length === 0 && (message.documents ?? []).length === 0)
        return [{ role: "user", content: message.text }];
      return [
        {
          role: "user",
          content: [
            { type: "input_text", text: message.text },
            ...(message.images ?? []).map((image) => ({
              type: "input_image" as const,
              image_url: `data:${image.mediaType};base64,${image.base64}`,
              detail: "auto" as const,
            })),
            ...(message.documents ?? []).map((document) => ({
              type: "input_file" as const,
              filename: document.name,
              file_data: `data:${document.mediaType};base64,${document.base64}`,
            })),
          ],
        },
      ];
    case "tool": {
      // A tool's images go with its output, after its text (`input_image` items).
      const images = message.images ?? [];
      if (images.length === 0)
        return [{ type: "function_call_output", call_id: message.toolCallId, output: message.text }];
      return [
        {
          type: "function_call_output",
          call_id: message.toolCallId,
          output: [
            { type: "input_text", text: message.text },
            ...images.map((image) => ({
              type: "input_image" as const,
              image_url: `data:${image.mediaType};base64,${image.base64}`,
              detail: "auto" as const,
            })),
          ],
        },
      ];
    }
    case "assistant": {
      const reasoning = ownFields(message.providerFields, "openai-responses")?.reasoning;
      // A copy: the stored fields must never change.
      const items: InputItem[] = Array.isArray(reasoning) ? [...(reasoning as InputItem[])] : [];
      if (message.text !== "") items.push({ role: "assistant", content: message.text });
      for (const call of message.toolCalls) {
        items.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.argumentsJson });
      }
      return items;
    }
  }
}
