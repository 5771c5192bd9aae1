import type { FinishReason } from "../model-provider.js";

/** Anthropic `stop_reason` as the neutral finish reason. */
export function mapAnthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}
