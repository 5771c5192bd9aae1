import { randomBytes } from "node:crypto";

/**
 * An id for a tool call whose provider gave none (Gemini, some OpenAI-compatible servers).
 * Made once when the response is read, then stored and used for the rest of the call's life.
 */
export function newCallId(): string {
  return `call_${randomBytes(12).toString("base64url")}`;
}
