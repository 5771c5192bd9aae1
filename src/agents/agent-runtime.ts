import { RoundtableError } from "../errors/roundtable-error.js";
import type { AgentConfig } from "../config/schema.js";
import type { ModelProvider, ModelRequest } from "../providers/model-provider.js";
import type { TurnRecord } from "../world/records.js";
import type { Outbox } from "../world/outbox.js";
import type { WorldContext } from "../world/world-context.js";
import type { WorldSettings } from "../world/world-settings.js";
import type { AgentPolicy, AgentTools } from "./agent-tools.js";
import type { ViewCut, ViewTarget } from "./view/fit-request-view.js";

/** A configured provider: the client and the API family it speaks. */
export interface ProviderEntry {
  provider: ModelProvider;
  type: string;
}

/** Masks and truncates a request view for a target model; never changes its input. */
export type ViewFitter = (request: ModelRequest, target: ViewTarget) => { request: ModelRequest; cuts: ViewCut[] };

/** Everything the agents side works with, injected. */
export interface AgentRuntime {
  world: WorldContext;
  outbox: Outbox;
  /** Agents by name, as configured (provider, model, prompt, tools). */
  agents: ReadonlyMap<string, AgentConfig>;
  providers: ReadonlyMap<string, ProviderEntry>;
  tools: AgentTools;
  policy: AgentPolicy;
  fitView: ViewFitter;
  /** Context budget and output reserve for a model (agent config overrides). */
  modelLimits(agent: AgentConfig): { budgetTokens: number; reserveOutputTokens: number };
  /** The short chat text for a provider failure. */
  describeProviderError(error: unknown): string;
  /** Aborted when the service stops. */
  stopSignal: AbortSignal;
  /** Caps on the files a tool call posts (default: the inbound defaults, 20 MiB per file, 50 MiB per call). */
  toolFileLimits?: { maxBytes: number; maxMessageBytes: number };
}

/** The turn with its agent and world, or why there is none. */
export interface TurnScope {
  turn: TurnRecord;
  agent: AgentConfig;
  world: WorldSettings;
}

/**
 * The scope of a turn its loop read (src/world/turn/turn-loop.ts), with the agent's config.
 * The loop found the agent configured (the world's agents are the config's).
 */
export function scopeOf(runtime: AgentRuntime, turn: TurnRecord, world: WorldSettings): TurnScope {
  const agent = runtime.agents.get(turn.agent);
  // Programming error: the world's agents and these are built from the same config.
  if (!agent) throw new RoundtableError("internal", `agent ${turn.agent} of turn ${turn.id} is not configured`);
  return { turn, agent, world };
}
