import type { FinishReason } from "../model-provider.js";

/** Gemini `finishReason` as the neutral finish reason (a STOP with calls becomes `tool-calls` later). */
export function mapGoogleFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "STOP":
      return "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
    case "IMAGE_PROHIBITED_CONTENT":
      return "content-filter";
    case "MALFORMED_FUNCTION_CALL":
    case "UNEXPECTED_TOOL_CALL":
    case "TOO_MANY_TOOL_CALLS":
      return "error";
    default:
      return "other";
  }
}
