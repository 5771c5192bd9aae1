import type { AnswerDraft } from "./delivery/answer-draft.js";
import type { BudgetExceeded } from "./limits/day-budget.js";
import type { MessageRecord, ToolCallRecord, TurnRecord } from "./records.js";
import type { WorldSettings } from "./world-settings.js";

/**
 * The port between a turn's loop (src/world/turn/turn-loop.ts, which makes every transition:
 * start, park, resume, record a result, close) and the workers behind it (src/agents, which
 * call providers and tools). A worker never moves a turn: it does one piece of work and says
 * how it went (docs/architecture.md, "Turns").
 */
export interface TurnWorkers {
  /** Why `agent` cannot make a model call now (no usable provider): the chat text, or undefined. */
  modelProblem(agent: string): string | undefined;
  /** One model call of a turn: its answer streamed to the chat and stored with its tool calls. */
  modelStep(input: ModelStepInput): Promise<ModelStepOutcome>;
  /** The names of the tools offered to `agent`. */
  toolsOffered(agent: string): ReadonlySet<string>;
  /** Parse and check a call's arguments text against the tool's schema. */
  checkArguments(tool: string, argumentsJson: string): ArgumentCheck;
  /** A tool's own rules beyond its schema (e.g. shell_cmd's `cwd`), in the world's tools directory. */
  precheck(tool: string, args: Record<string, unknown>, world: WorldSettings): Promise<string | undefined>;
  /** The configured approval policy. */
  policy: CallPolicy;
  /** Run one call whose approval (if any) is settled: its result, or `stopped` by `/stop`. */
  runTool(input: ToolRunInput): Promise<ToolRunOutcome>;
  /**
   * A call that was running when the service stopped: what it posted or left in its outbox
   * still reaches the chat, once (the line for its result, if any).
   */
  postLeftFiles(call: ToolCallRecord, turn: TurnRecord, world: WorldSettings): Promise<string | undefined>;
}

/** Who stopped a turn, as a worker sees it. */
export interface SeenStop {
  by: { id: string; name: string };
}

export interface ModelStepInput {
  turn: TurnRecord;
  step: number;
  world: WorldSettings;
  /** The message the turn answers (read with the step's answer). */
  trigger: MessageRecord | undefined;
  /** The turn was created by this step's job: no earlier run of the step left a draft. */
  created: boolean;
  /** Aborts when the turn is stopped (`/stop`); {@link stopOf} says by whom. */
  stopped: AbortSignal;
  stopOf(): SeenStop | undefined;
  /** The chain starter's name for budget texts (the first human of the chain). */
  starterName(): Promise<string | undefined>;
}

/** How a model step went; the loop acts on it. */
export type ModelStepOutcome =
  /** Stored: text only (`answered`) or with calls (`calls`); the answer is not yet published. */
  | { kind: "answered" | "calls"; message: MessageRecord; calls: ToolCallRecord[]; answer: AnswerDraft }
  /** The provider failed: the chat text. */
  | { kind: "failed"; text: string }
  /** The turn's time limit, or a budget cap (`ask`: the world may ask to let it past). */
  | { kind: "limit"; limit: { reason: "deadline" } | { reason: "budget"; exceeded: BudgetExceeded; ask: boolean } }
  /** Cut by `/stop` (the partial answer is shown already). */
  | { kind: "stopped" };

export interface ToolRunInput {
  call: ToolCallRecord;
  turn: TurnRecord;
  /** The arguments that run (an approver's edit, if any), checked. */
  args: Record<string, unknown>;
  world: WorldSettings;
  /** Aborts when the turn is stopped (`/stop`); {@link stopOf} says by whom. */
  stopped: AbortSignal;
  stopOf(): SeenStop | undefined;
}

/** A tool run's result (its files posted and named in the text), or `stopped` by `/stop` (its files dropped). */
export type ToolRunOutcome =
  | { kind: "ok" | "error" | "timeout" | "failed"; text: string }
  | { kind: "stopped"; stop: SeenStop };

/** Arguments checked against a tool's schema, or the problem found. */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

/** What the approval policy says about one call. */
export interface PolicyVerdict {
  action: "run" | "ask" | "block";
  reason: string;
  /** A configured rule could not be checked: nothing, stored rules included, lets the call run unasked. */
  unchecked?: true;
}

/** The approval policy as the loop needs it. */
export interface CallPolicy {
  decide(name: string, args: Record<string, unknown>): PolicyVerdict;
  /** Stable hash of a call (tool and canonical arguments), for session grants and the repeat guard. */
  hash(name: string, args: Record<string, unknown>): string;
  /** Arguments pretty-printed and truncated for a card. */
  preview(args: Record<string, unknown>): string;
}
