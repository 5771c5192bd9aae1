import type { AgentConfig } from "../config/schema.js";
import type { ModelProvider, ModelRequest } from "../providers/model-provider.js";
import type { TurnRecord } from "../world/records.js";
import type { Outbox } from "../world/outbox.js";
import { finishStoppedTurn, type TurnInterrupts } from "../world/turn/index.js";
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
  /** Watches on turns, so that `/stop` aborts a model stream or a tool run of the turn. */
  interrupts: TurnInterrupts;
  /** Caps on the files a tool call posts (default: the inbound defaults, 20 MiB per file, 50 MiB per call). */
  toolFileLimits?: { maxBytes: number; maxMessageBytes: number };
}

/** The turn with its agent and world, or why there is none. */
export interface TurnScope {
  turn: TurnRecord;
  agent: AgentConfig;
  world: WorldSettings;
}

export async function loadTurnScope(runtime: AgentRuntime, turnId: string): Promise<TurnScope | undefined> {
  const { store, worlds, logger } = runtime.world;
  let turn = await store.getTurn(turnId);
  if (!turn) {
    logger.warn({ turnId }, "no such turn");
    return undefined;
  }
  if (turn.stoppedBy && turn.state !== "ended") {
    // Stopped, but the stop did not get to end it (a crash): end it now; nothing of it runs.
    await finishStoppedTurn(runtime.world, runtime.outbox, turn);
    turn = (await store.getTurn(turnId)) ?? turn;
  }
  const worldName = await store.chatWorld(turn.chatKey);
  const world = worldName === undefined ? undefined : worlds.get(worldName);
  const agent = runtime.agents.get(turn.agent);
  if (!world || !agent) {
    logger.error({ turnId, agent: turn.agent }, "turn refers to an agent or world no longer configured");
    return undefined;
  }
  return { turn, agent, world };
}
