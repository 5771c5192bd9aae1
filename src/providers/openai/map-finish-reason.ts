import type { FinishReason } from "../model-provider.js";

/** Chat Completions `finish_reason` as the neutral finish reason. */
export function mapOpenAIFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "content-filter";
    default:
      return "other";
  }
}
