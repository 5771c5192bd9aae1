import type { Logger } from "../log/logger.js";
import type { InboundFiles } from "./files/inbound-files.js";
import type { Store } from "./store.js";
import type { ChannelRegistry } from "./channel/channel-registry.js";
import type { ChatRef } from "./chat-ref.js";
import type { WorkQueue } from "./work-queue.js";
import type { StepSlots } from "./queue/step-slots.js";
import type { AgentSettings, WorldSettings } from "./world-settings.js";
import type { EventPolicy } from "./policy/event-policy.js";
import type { EditCheck } from "./stores/denials-and-edits.js";
import type { BudgetExceeded } from "./limits/day-budget.js";
import type { MessageRecord, ToolCallRecord, TurnRecord } from "./records.js";

/** Which world a chat belongs to, and the worlds by name. */
export interface WorldDirectory {
  /** The world a chat is bound to (its platform's chat bindings, `*` allowed), if any. */
  worldFor(chat: ChatRef): WorldSettings | undefined;
  get(name: string): WorldSettings | undefined;
  /**
   * Whether the owner bound this chat to its world by its own id (not through `*` or the
   * default catch-all). Only there do `admins` and `role:` count: whoever creates a group or
   * a server is its admin and can name a role anything (docs/architecture.md, "Who may act").
   * Chats that name their world (console, web) are the operator's own and count as bound.
   */
  bindsById(chat: ChatRef): boolean;
}

/**
 * The steps of a turn as the world's jobs run them: the turn's loop (src/world/turn/turn-loop.ts),
 * which calls providers and tools through the workers' port ({@link TurnWorkers}).
 */
export interface TurnRunner {
  /**
   * `created`: the turn was created by the job that runs this step (its first step): nothing of
   * it can have run before, so no look for what an earlier run left (a draft) is needed.
   */
  step(turnId: string, step: number, options?: { created?: boolean }): Promise<void>;
  runTool(toolCallId: string): Promise<void>;
  approvalDecided(approvalId: string): Promise<void>;
  approvalExpire(approvalId: string): Promise<void>;
}

/** Everything the world engine works with, injected. */
export interface WorldContext {
  store: Store;
  queue: WorkQueue;
  logger: Logger;
  worlds: WorldDirectory;
  channels: ChannelRegistry;
  /** Agents by name: their identity in chats and turn limits. */
  agents: ReadonlyMap<string, AgentSettings>;
  /**
   * The stable hash of a call (tool and canonical arguments) that session grants are keyed by;
   * undefined when the arguments do not parse. Supplied by the tool side.
   */
  hashCall: (tool: string, argumentsJson: string) => string | undefined;
  /** A call's arguments as its card shows them (the policy's preview). Supplied by the tool side. */
  previewCall: (tool: string, argumentsJson: string) => string;
  /**
   * An approver's edit of a call's arguments checked as the model's would be: the tool's input
   * schema and the configured `deny` rules (absent: edits are refused). Supplied by the tool side.
   */
  checkEdit?: (tool: string, argumentsJson: string) => EditCheck;
  clock: () => Date;
  /** Downloads and places inbound messages' files (absent: attachments are not fetched). */
  files?: InboundFiles;
  /**
   * How long a delivery the platform keeps refusing holds the chat's later deliveries (so
   * answers keep their order) before it is given up with a log line and a notice. Default 30 s.
   */
  deliveryHoldMs?: number;
  /** The policy modules (`hooks`, docs/hooks.md); absent: no hooks, no events built. */
  policy?: EventPolicy;
  /**
   * The slots of `queue.concurrency` (src/world/queue/step-slots.ts): each step runs in one, and gives
   * it back while it waits. Absent: the queue's own concurrency is the only bound.
   */
  stepSlots?: StepSlots;
}

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

/** A step's answer in the chat (`src/world/delivery/answer-draft.ts`): the loop publishes or discards it. */
export interface StepAnswer {
  publish(message: MessageRecord, options?: { rerun?: boolean }): Promise<void>;
  discard(): Promise<void>;
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
  | { kind: "answered" | "calls"; message: MessageRecord; calls: ToolCallRecord[]; answer: StepAnswer }
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
