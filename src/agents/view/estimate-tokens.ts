import type { ModelRequest, ToolDefinition, ViewMessage } from "../../providers/model-provider.js";

/**
 * Token estimates without a tokenizer: UTF-8 bytes / 4, rounded up. About right for English
 * and code (~4 characters a token) and on the safe side for most other scripts, where a
 * character takes 2–3 bytes and roughly one token. Plus a small overhead per message and per
 * tool call for the wire format's framing. Good enough to keep a view under a budget that
 * itself keeps a margin; never used for billing.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

export const messageOverheadTokens = 4;
const toolCallOverheadTokens = 10;
/**
 * What one image costs a view: providers charge by its pixels (about 1,600 tokens for a
 * full-size image on Anthropic, up to ~1,100 on OpenAI's high detail tiles, 258 on Gemini);
 * the larger figure keeps a view with images under its budget on all of them.
 */
export const imageTokens = 1_600;

/**
 * What one page of a PDF costs a view: Anthropic and OpenAI read each page as its text (about
 * 1,500 tokens for a full page) and as an image (~1,600); Gemini counts 258 a page. The larger
 * figure, as for images.
 */
export const documentPageTokens = 3_000;

export function estimateMessageTokens(message: ViewMessage): number {
  switch (message.role) {
    case "user":
      return (
        messageOverheadTokens +
        estimateTextTokens(message.text) +
        (message.images?.length ?? 0) * imageTokens +
        (message.documents ?? []).reduce((sum, document) => sum + document.pages * documentPageTokens, 0)
      );
    case "tool":
      return (
        messageOverheadTokens +
        toolCallOverheadTokens +
        estimateTextTokens(message.text) +
        (message.images?.length ?? 0) * imageTokens
      );
    case "assistant":
      return (
        messageOverheadTokens +
        estimateTextTokens(message.text) +
        message.toolCalls.reduce(
          (sum, call) =>
            sum + toolCallOverheadTokens + estimateTextTokens(call.name) + estimateTextTokens(call.argumentsJson),
          0,
        )
      );
  }
}

export function estimateToolsTokens(tools: ToolDefinition[]): number {
  return tools.reduce((sum, tool) => sum + toolCallOverheadTokens + estimateTextTokens(JSON.stringify(tool)), 0);
}

/** What the whole request takes of the context, before the answer. */
export function estimateRequestTokens(request: ModelRequest): number {
  return (
    messageOverheadTokens +
    estimateTextTokens(request.system) +
    estimateToolsTokens(request.tools) +
    request.messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0)
  );
}
