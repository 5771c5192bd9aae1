import type { AgentConfig } from "../../config/schema.js";
import { modelLimits } from "../../providers/model-limits.js";
import type { ViewTarget } from "./view-cut.js";

/**
 * The view target for an agent: its provider and model, the model's context budget (the
 * agent's `contextBudget` or the model's known limit) with room kept for the answer (the
 * agent's `maxOutputTokens` or the model's). `providerTypes` maps every configured provider
 * name to its type, so history made under another provider is recognised.
 */
export function viewTargetFor(
  agent: Pick<AgentConfig, "provider" | "model" | "contextBudget" | "maxOutputTokens">,
  providerType: string,
  providerTypes: Record<string, string> = {},
): ViewTarget {
  const limits = modelLimits(agent.model, {
    contextBudget: agent.contextBudget,
    maxOutputTokens: agent.maxOutputTokens,
  });
  return {
    provider: agent.provider,
    model: agent.model,
    providerType,
    budgetTokens: limits.contextTokens,
    reserveOutputTokens: limits.maxOutputTokens,
    providerTypes,
  };
}
