/** How much a model takes in and gives out, in tokens. */
export interface ModelLimits {
  /** The context window: prompt plus answer. */
  contextTokens: number;
  maxOutputTokens: number;
}

/** Limits for a model this table does not know. */
export const defaultModelLimits: ModelLimits = { contextTokens: 32_768, maxOutputTokens: 4_096 };

/**
 * Known model families, first match wins. Names are matched after dropping a router prefix
 * (`openai/gpt-4o` on OpenRouter) and an Ollama tag (`llama3.1:8b`). Figures are the
 * vendors' published limits, rounded down where they vary between snapshots.
 */
const families: { pattern: RegExp; limits: ModelLimits }[] = [
  { pattern: /^gpt-5/, limits: { contextTokens: 400_000, maxOutputTokens: 128_000 } },
  { pattern: /^gpt-4\.1/, limits: { contextTokens: 1_047_576, maxOutputTokens: 32_768 } },
  { pattern: /^(gpt-4o|chatgpt-4o)/, limits: { contextTokens: 128_000, maxOutputTokens: 16_384 } },
  { pattern: /^gpt-4-turbo|^gpt-4-\d{4}-preview/, limits: { contextTokens: 128_000, maxOutputTokens: 4_096 } },
  { pattern: /^gpt-4(-|$)/, limits: { contextTokens: 8_192, maxOutputTokens: 4_096 } },
  { pattern: /^gpt-3\.5-turbo/, limits: { contextTokens: 16_385, maxOutputTokens: 4_096 } },
  { pattern: /^o[134](-|$)/, limits: { contextTokens: 200_000, maxOutputTokens: 100_000 } },
  { pattern: /^claude-(opus-4|4-opus)/, limits: { contextTokens: 200_000, maxOutputTokens: 32_000 } },
  { pattern: /^claude-(sonnet-4|4-sonnet|haiku-4|3-7)/, limits: { contextTokens: 200_000, maxOutputTokens: 64_000 } },
  { pattern: /^claude-3-5/, limits: { contextTokens: 200_000, maxOutputTokens: 8_192 } },
  { pattern: /^claude-3/, limits: { contextTokens: 200_000, maxOutputTokens: 4_096 } },
  { pattern: /^claude/, limits: { contextTokens: 200_000, maxOutputTokens: 8_192 } },
  { pattern: /^gemini-(2\.5|3)/, limits: { contextTokens: 1_048_576, maxOutputTokens: 65_536 } },
  { pattern: /^gemini-1\.5-pro/, limits: { contextTokens: 2_097_152, maxOutputTokens: 8_192 } },
  { pattern: /^gemini/, limits: { contextTokens: 1_048_576, maxOutputTokens: 8_192 } },
  { pattern: /^(llama-?3\.[123]|llama-?4)/, limits: { contextTokens: 128_000, maxOutputTokens: 4_096 } },
  { pattern: /^(qwen2\.5|qwen3)/, limits: { contextTokens: 32_768, maxOutputTokens: 8_192 } },
  { pattern: /^deepseek/, limits: { contextTokens: 64_000, maxOutputTokens: 8_192 } },
  {
    pattern: /^(mistral-large|mistral-medium|mistral-small|codestral)/,
    limits: { contextTokens: 128_000, maxOutputTokens: 8_192 },
  },
];

/** The family name of a model: lower case, without a router prefix or an Ollama tag. */
export function modelFamilyName(model: string): string {
  const lower = model.trim().toLowerCase();
  const withoutPrefix = lower.includes("/") ? lower.slice(lower.lastIndexOf("/") + 1) : lower;
  const colon = withoutPrefix.indexOf(":");
  return colon === -1 ? withoutPrefix : withoutPrefix.slice(0, colon);
}

/** What an agent's config may set to override the table. */
export interface ModelLimitOverrides {
  contextBudget?: number | undefined;
  maxOutputTokens?: number | undefined;
}

/**
 * The limits for a model: the table's, or {@link defaultModelLimits} for an unknown model,
 * with the agent's `contextBudget` / `maxOutputTokens` taking precedence. The output limit is
 * never more than half the context, so a small configured budget still leaves room for input.
 */
export function modelLimits(model: string, overrides: ModelLimitOverrides = {}): ModelLimits {
  const name = modelFamilyName(model);
  const known = families.find((family) => family.pattern.test(name))?.limits ?? defaultModelLimits;
  const contextTokens = overrides.contextBudget ?? known.contextTokens;
  const maxOutputTokens =
    overrides.maxOutputTokens ?? Math.min(known.maxOutputTokens, Math.max(256, Math.floor(contextTokens / 2)));
  return { contextTokens, maxOutputTokens };
}
