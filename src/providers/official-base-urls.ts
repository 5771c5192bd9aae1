/**
 * The public endpoints of the three APIs, in a file of their own so that resolving a
 * provider's endpoint does not load its SDK.
 */
export const officialOpenAIBaseUrl = "https://api.openai.com/v1";
export const officialAnthropicBaseUrl = "https://api.anthropic.com";
export const officialGeminiBaseUrl = "https://generativelanguage.googleapis.com";
