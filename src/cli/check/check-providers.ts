import { ConfigError } from "../../errors/roundtable-error.js";
import { apiKeyVariablesText } from "../../config/provider-environment.js";
import type { Config, ProviderConfig, ProviderType } from "../../config/schema.js";
import type { CheckOutcome } from "./check-row.js";

/** A provider in use, with the models its agents name. */
export interface UsedProvider {
  name: string;
  type: ProviderType;
  provider: ProviderConfig;
  models: string[];
}

/** Providers named by at least one agent. */
export function usedProviders(config: Config): UsedProvider[] {
  const used = new Map<string, UsedProvider>();
  for (const agent of config.agents) {
    const provider = config.providers[agent.provider];
    if (!provider?.type) continue;
    const entry = used.get(agent.provider) ?? { name: agent.provider, type: provider.type, provider, models: [] };
    if (!entry.models.includes(agent.model)) entry.models.push(agent.model);
    used.set(agent.provider, entry);
  }
  return [...used.values()];
}

const timeoutMs = 15_000;

/** Asks the provider's identity endpoint (list models) with the official SDK, so a bad key or URL shows here. */
export async function checkProvider(used: UsedProvider, keyRequired: boolean): Promise<CheckOutcome> {
  const { provider } = used;
  if (used.type === "scripted") return "built-in scripted model: no key, no network";
  if (provider.apiKey === undefined && keyRequired) {
    throw new ConfigError(`no API key: set providers.${used.name}.apiKey or ${apiKeyVariablesText(used.type)}`);
  }
  const models = await listModels(used, provider);
  const missing = used.models.filter((model) => !models.includes(model));
  const where = provider.baseUrl ?? "default endpoint";
  const note = missing.length > 0 ? `; not in the list (check the name): ${missing.join(", ")}` : "";
  return `key accepted by ${where}; ${models.length} models${note}`;
}

async function listModels(used: UsedProvider, provider: ProviderConfig): Promise<string[]> {
  // A keyless OpenAI-compatible server still needs some string for the SDK's header.
  const apiKey = provider.apiKey ?? "unused";
  switch (used.type) {
    case "openai": {
      const { default: OpenAI } = await import("openai");
      const client = new OpenAI({ apiKey, baseURL: provider.baseUrl ?? null, maxRetries: 0, timeout: timeoutMs });
      const page = await client.models.list();
      return page.data.map((model) => model.id);
    }
    case "anthropic": {
      const { default: Anthropic } = await import("@anthropic-ai/sdk");
      const client = new Anthropic({ apiKey, baseURL: provider.baseUrl ?? null, maxRetries: 0, timeout: timeoutMs });
      const page = await client.models.list();
      return page.data.map((model) => model.id);
    }
    case "google": {
      const { GoogleGenAI } = await import("@google/genai");
      const client = new GoogleGenAI({
        apiKey,
        httpOptions: { timeout: timeoutMs, ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }) },
      });
      const pager = await client.models.list();
      return pager.page.map((model) => (model.name ?? "").replace(/^models\//, ""));
    }
    case "scripted":
      // Built in: it answers to any model name and needs no network.
      return [...used.models];
  }
}
