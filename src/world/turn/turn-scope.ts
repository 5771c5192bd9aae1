import type { Outbox } from "../outbox.js";
import type { TurnRecord } from "../records.js";
import type { TurnWorkers, WorldContext } from "../world-context.js";
import type { AgentSettings, WorldSettings } from "../world-settings.js";
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
