import {
  builtInProviderNames,
  firstSetVariable,
  providerEnvironments,
  requiresApiKey,
} from "./provider-environment.js";
import type { ProviderType } from "./schema.js";

/** What the default agent answers, and `start` logs, when no provider key is set. */
export const noProviderKeyMessage =
  "no provider key configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or write a roundtable.yaml), then restart";

/** The agent and world of the built-in default. */
const defaultAgentName = "assistant";
const defaultWorldName = "main";

/**
 * The config used when there is no file: one world `main` with one agent `assistant` on the
 * first provider whose key is set (openai, anthropic, google). With no key at all it still
 * names `openai` (keyless); `loadConfig` reports that provider as unconfigured.
 * Returned as plain data, validated like a file.
 */
export function defaultConfigData(env: Record<string, string | undefined>): Record<string, unknown> {
  const type = defaultProviderType(env);
  return {
    agents: [
      {
        name: defaultAgentName,
        provider: type,
        model: providerEnvironments[type].defaultModel,
        systemPrompt: `You are ${defaultAgentName}, a helpful assistant in a group chat. Answer clearly and briefly.`,
        tools: [],
      },
    ],
    worlds: [{ name: defaultWorldName, agents: [defaultAgentName], defaultAgent: defaultAgentName }],
  };
}

/** The first provider the environment makes usable; `openai` when none is. */
function defaultProviderType(env: Record<string, string | undefined>): ProviderType {
  for (const type of builtInProviderNames) {
    const environment = providerEnvironments[type];
    if (firstSetVariable(env, environment.apiKeyVariables) !== undefined) return type;
    const baseUrl = firstSetVariable(env, environment.baseUrlVariables);
    if (baseUrl !== undefined && !requiresApiKey(type, { baseUrl })) return type;
  }
  return "openai";
}
