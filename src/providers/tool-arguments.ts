/**
 * Tool arguments travel as the raw JSON text the model produced (`argumentsJson`). Anthropic
 * and Gemini want an object back; text that is not a JSON object is sent as `{}` (the tool
 * loop already answered such a call with an `invalid` result that names the problem).
 */
export function argumentsObject(argumentsJson: string): Record<string, unknown> {
  if (argumentsJson.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(argumentsJson);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    return {};
  } catch {
    return {};
  }
}

/** The JSON text of arguments a provider gave as an object (Gemini). */
export function argumentsJsonOf(args: unknown): string {
  if (args === undefined || args === null) return "{}";
  return JSON.stringify(args);
}
