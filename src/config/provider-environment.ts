import type { ProviderConfig, ProviderType } from "./schema.js";

/** What the environment may supply for a provider named after its type, and the model the default agent uses. */
export interface ProviderEnvironment {
  /** Checked in order; the first non-empty one wins. */
  apiKeyVariables: readonly string[];
  baseUrlVariables: readonly string[];
  defaultModel: string;
}

export const providerEnvironments: Readonly<Record<ProviderType, ProviderEnvironment>> = {
  openai: { apiKeyVariables: ["OPENAI_API_KEY"], baseUrlVariables: ["OPENAI_BASE_URL"], defaultModel: "gpt-4.1" },
  anthropic: {
    apiKeyVariables: ["ANTHROPIC_API_KEY"],
    baseUrlVariables: ["ANTHROPIC_BASE_URL"],
    defaultModel: "claude-sonnet-4-6",
  },
  google: {
    apiKeyVariables: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrlVariables: ["GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"],
    defaultModel: "gemini-2.5-flash",
  },
  // Built in: nothing to read from the environment, and never picked for the default agent.
  scripted: { apiKeyVariables: [], baseUrlVariables: [], defaultModel: "scripted" },
};

/** The provider names that need no `providers` entry: each implies its own type. */
export const builtInProviderNames: readonly ProviderType[] = ["openai", "anthropic", "google", "scripted"];

export function isBuiltInProviderName(name: string): name is ProviderType {
  return (builtInProviderNames as readonly string[]).includes(name);
}

/** The first non-empty value among `names` in the environment. */
export function firstSetVariable(
  env: Record<string, string | undefined>,
  names: readonly string[],
): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/**
 * Whether a provider cannot work without an API key. An OpenAI-compatible server elsewhere
 * than api.openai.com (Ollama, vLLM, llama.cpp) often takes none.
 */
export function requiresApiKey(type: ProviderType, provider: Pick<ProviderConfig, "baseUrl">): boolean {
  if (type === "scripted") return false;
  if (type !== "openai" || provider.baseUrl === undefined) return true;
  try {
    return new URL(provider.baseUrl).hostname === "api.openai.com";
  } catch {
    return true;
  }
}

/** `OPENAI_API_KEY`, `GEMINI_API_KEY or GOOGLE_API_KEY`: for messages. */
export function apiKeyVariablesText(type: ProviderType): string {
  return providerEnvironments[type].apiKeyVariables.join(" or ");
}
