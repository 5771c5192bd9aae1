import type { ProviderEntry } from "../agents/agent-runtime.js";
import type { AgentPolicy, AgentTools } from "../agents/agent-tools.js";
import { fitRequestView } from "../agents/view/fit-request-view.js";
import { type Config, providerConfigSchema } from "../config/schema.js";
import { ProviderError, type ProviderErrorCode } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { createProvider, resolveProviderType } from "../providers/create-provider.js";
import { modelLimits } from "../providers/model-limits.js";
import { userMessageFor } from "../providers/user-message.js";
import { argumentsHash, decidePolicy, previewArguments } from "../tools/approval-policy.js";
import { openTools } from "../tools/open-tools.js";
import { serviceState, type ServiceStateSources } from "./service-state.js";
import { traceProvider } from "../telemetry/traced-provider.js";
import { traceToolCall } from "../telemetry/traced-tool-call.js";
import { loadEventPolicy } from "../hooks/module-policy.js";
import type { RoundtableParts } from "./roundtable.js";

export type BuiltParts = Pick<
  RoundtableParts,
  "providers" | "tools" | "policy" | "fitView" | "modelLimits" | "describeProviderError" | "closeables" | "eventPolicy"
>;

export interface BuildOverrides {
  /** Used instead of the configured providers (tests pass scripted models). */
  providers?: ReadonlyMap<string, ProviderEntry>;
  /** Where the service's own state is, hidden from sandboxed `shell_cmd` calls (default: the default database under the process's directory). */
  state?: ServiceStateSources;
}

/**
 * The providers, tools (shell and MCP, connected now so their tools are offered from the
 * first turn), approval policy and request-view fitting the config describes.
 */
export async function buildParts(config: Config, logger: Logger, overrides: BuildOverrides = {}): Promise<BuiltParts> {
  // First: a policy module that does not load stops the start before anything else is started.
  const eventPolicy = await loadEventPolicy(config, logger);
  const providers = traceProviders(overrides.providers ?? providersFromConfig(config, logger));
  const opened = await openTools(config.tools, logger.child({ component: "tools" }), {
    shell: { state: serviceState(overrides.state ?? {}) },
  });
  const registry = opened.registry;
  const tools: AgentTools = {
    definitionsFor: (toolList) => registry.toolsForAgent(toolList),
    check: (name, argumentsJson) => registry.check(name, argumentsJson),
    precheck: (name, args, workdir) => registry.precheck(name, args, workdir),
    call: (name, args, context) => traceToolCall(name, () => registry.call(name, args, context)),
  };
  const policy: AgentPolicy = {
    decide: (name, args) => decidePolicy(name, args, config.tools),
    hash: argumentsHash,
    preview: (args) => previewArguments(args, 1500),
  };
  return {
    providers,
    tools,
    policy,
    fitView: fitRequestView,
    modelLimits: (agent) => {
      const limits = modelLimits(agent.model, {
        contextBudget: agent.contextBudget,
        maxOutputTokens: agent.maxOutputTokens,
      });
      return { budgetTokens: limits.contextTokens, reserveOutputTokens: limits.maxOutputTokens };
    },
    describeProviderError,
    closeables: [opened],
    ...(eventPolicy === undefined ? {} : { eventPolicy }),
  };
}

/** The chat text for a failed model call: the provider's own safe message when it wrote one. */
function describeProviderError(error: unknown): string {
  if (!(error instanceof ProviderError)) {
    return "Something went wrong while the agent was answering; the details are in the service log.";
  }
  if (error.userMessage !== error.message) return error.userMessage;
  return userMessageFor(
    error.code as ProviderErrorCode,
    error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs },
  );
}

/** Each provider with a span around every model call (src/telemetry). */
function traceProviders(entries: ReadonlyMap<string, ProviderEntry>): Map<string, ProviderEntry> {
  return new Map(
    [...entries].map(([name, entry]) => [name, { ...entry, provider: traceProvider(entry.provider, entry.type) }]),
  );
}

/** One client per provider an agent uses (an agent may name openai/anthropic/google with no entry). */
function providersFromConfig(config: Config, logger: Logger): Map<string, ProviderEntry> {
  const entries = new Map<string, ProviderEntry>();
  for (const agent of config.agents) {
    if (entries.has(agent.provider)) continue;
    const settings = config.providers[agent.provider] ?? providerConfigSchema.parse({});
    try {
      entries.set(agent.provider, {
        provider: createProvider(agent.provider, settings, logger),
        type: resolveProviderType(agent.provider, settings),
      });
    } catch (error) {
      logger.error({ err: error, provider: agent.provider }, "provider could not be set up; its agents will say so");
    }
  }
  return entries;
}
