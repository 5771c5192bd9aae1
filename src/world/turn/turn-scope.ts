import type { Outbox } from "../outbox.js";
import type { TurnRecord } from "../records.js";
import type { TurnWorkers } from "../turn-workers.js";
import type { WorldContext } from "../world-context.js";
import type { AgentSettings, WorldSettings } from "../world-settings.js";
import { finishStoppedTurn } from "./close-turn.js";
import type { TurnInterrupts } from "./turn-interrupts.js";

/** What the turn loop works with: the world, its outbox, the workers behind the port, the watches `/stop` reaches. */
export interface LoopParts {
  world: WorldContext;
  outbox: Outbox;
  workers: TurnWorkers;
  interrupts: TurnInterrupts;
}

/** The turn with its agent and world. */
export interface TurnScope {
  turn: TurnRecord;
  agent: AgentSettings;
  world: WorldSettings;
}

/** The turn with its agent and world, or undefined (logged) when there is none. */
export async function loadTurnScope(loop: LoopParts, turnId: string): Promise<TurnScope | undefined> {
  const { store, worlds, logger, agents } = loop.world;
  let turn = await store.getTurn(turnId);
  if (!turn) {
    logger.warn({ turnId }, "no such turn");
    return undefined;
  }
  if (turn.stoppedBy && turn.state !== "ended") {
    // Stopped, but the stop did not get to end it (a crash): end it now; nothing of it runs.
    await finishStoppedTurn(loop.world, loop.outbox, turn);
    turn = (await store.getTurn(turnId)) ?? turn;
  }
  const worldName = await store.chatWorld(turn.chatKey);
  const world = worldName === undefined ? undefined : worlds.get(worldName);
  const agent = agents.get(turn.agent);
  if (!world || !agent) {
    logger.error({ turnId, agent: turn.agent }, "turn refers to an agent or world no longer configured");
    return undefined;
  }
  return { turn, agent, world };
}
