import type { Content, FunctionDeclaration, GenerateContentParameters, Part } from "@google/genai";
import type { ModelRequest, ModelToolCall, ViewImage, ViewMessage } from "../model-provider.js";
import { ownFields } from "../provider-fields.js";
import { argumentsObject } from "../tool-arguments.js";

/** Said in place of a missing first user turn (Gemini wants the conversation to start with the user). */
export const conversationContinues = "[the conversation continues]";

/**
 * Gemini 3 checks that the first function call of each model turn carries the thought
 * signature it issued. Calls that never had one (made before a switch from another model)
 * get the placeholder Google documents for carried-over history.
 */
export const carriedOverSignature = "skip_thought_signature_validator";

/** Request parameters minus what the provider adds per call (abort signal, HTTP options). */
export type GoogleRequest = Pick<GenerateContentParameters, "model" | "contents"> & {
  config: NonNullable<GenerateContentParameters["config"]>;
};

/**
 * A neutral request view as Gemini `generateContent` parameters: the system prompt as
 * `systemInstruction`, the agent's messages as `model` contents with `functionCall` parts
 * (thought signatures sent back as they came; ids only when Gemini gave them), tool results
 * as `functionResponse` parts in a `user` content, consecutive contents of one role merged.
 * A result's images go inside its function response (`parts`) on Gemini 3, which takes
 * multimodal function responses; before it, as `inlineData` parts after the run of function
 * responses, in the same user turn.
 */
export function convertGoogleRequest(request: ModelRequest): GoogleRequest {
  const gemini3 = /^gemini-3/.test(request.model.replace(/^models\//, ""));
  const contents: Content[] = [];
  const push = (role: "user" | "model", parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last && last.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
  };
  // Before Gemini 3 a function response carries no media: a run of results' images follows
  // their function responses in the same user turn, as inline parts.
  let toolImages: Part[] = [];
  for (const message of request.messages) {
    if (message.role !== "tool" && toolImages.length > 0) {
      push("user", toolImages);
      toolImages = [];
    }
    push(roleOf(message), partsOf(message, gemini3));
    if (message.role === "tool" && !gemini3) toolImages.push(...(message.images ?? []).map(inlinePart));
  }
  if (toolImages.length > 0) push("user", toolImages);
  if (contents[0]?.role !== "user") contents.unshift({ role: "user", parts: [{ text: conversationContinues }] });
  const functionDeclarations: FunctionDeclaration[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: tool.inputSchema,
  }));
  return {
    model: request.model,
    contents,
    config: {
      ...(request.system.trim() === "" ? {} : { systemInstruction: request.system }),
      ...(functionDeclarations.length === 0 ? {} : { tools: [{ functionDeclarations }] }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      // The SDK may neither run tools nor send follow-up requests on its own: providers are pure.
      automaticFunctionCalling: { disable: true },
      automaticContinuation: false,
    },
  };
}

function roleOf(message: ViewMessage): "user" | "model" {
  return message.role === "assistant" ? "model" : "user";
}

function partsOf(message: ViewMessage, gemini3: boolean): Part[] {
  switch (message.role) {
    case "user":
      return [
        ...(message.text.trim() === "" ? [] : [{ text: message.text }]),
        ...(message.images ?? []).map(inlinePart),
        ...(message.documents ?? []).map((document) => ({
          inlineData: { mimeType: document.mediaType, data: document.base64 },
        })),
      ];
    case "tool": {
      const fromModel = !message.toolCallId.startsWith(generatedIdPrefix);
      // Gemini 3 takes a result's images inside its function response (`parts`).
      const images = gemini3 ? (message.images ?? []) : [];
      return [
        {
          functionResponse: {
            name: message.toolName,
            response: { output: message.text },
            ...(fromModel ? { id: message.toolCallId } : {}),
            ...(images.length === 0
              ? {}
              : { parts: images.map((image) => ({ inlineData: { mimeType: image.mediaType, data: image.base64 } })) }),
          },
        },
      ];
    }
    case "assistant": {
      const parts: Part[] = [];
      if (message.text.trim() !== "") {
        const signature = ownFields(message.providerFields, "google")?.thoughtSignature;
        parts.push({ text: message.text, ...(typeof signature === "string" ? { thoughtSignature: signature } : {}) });
      }
      message.toolCalls.forEach((call, index) => {
        parts.push(functionCallPart(call, gemini3 && index === 0));
      });
      return parts;
    }
  }
}

function inlinePart(image: ViewImage): Part {
  return { inlineData: { mimeType: image.mediaType, data: image.base64 } };
}

function functionCallPart(call: ModelToolCall, signatureRequired: boolean): Part {
  const own = ownFields(call.providerFields, "google");
  const signature =
    typeof own?.thoughtSignature === "string"
      ? own.thoughtSignature
      : signatureRequired
        ? carriedOverSignature
        : undefined;
  return {
    functionCall: {
      name: call.name,
      args: argumentsObject(call.argumentsJson),
      ...(call.id.startsWith(generatedIdPrefix) ? {} : { id: call.id }),
    },
    ...(signature === undefined ? {} : { thoughtSignature: signature }),
  };
}

/**
 * Gemini usually gives no call ids; ours start with this prefix so they are never sent back
 * as if Gemini had issued them.
 */
export const generatedIdPrefix = "gemini_call_";
