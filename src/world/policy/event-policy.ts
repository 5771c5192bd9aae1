/**
 * The world's one interception point (docs/hooks.md): the port through which the route step and
 * the tool loop hand events to the configured policy modules, the outcomes they get back, and
 * the store part that keeps an outcome before anything acts on it.
 */
import type { MessageRecord, ToolCallRecord } from "../records.js";
import type { HookMessage, RespondMessage, RespondOptions, RoundtableEvent } from "./hook-events.js";

export type {
  HookChat,
  HookFile,
  HookMessage,
  HookToolCall,
  MessageEvent,
  RespondMessage,
  RoundtableEvent,
  ToolCallEvent,
} from "./hook-events.js";

/** What the hooks made of one event. */
export type HookDecision =
  | { outcome: "kept" }
  | { outcome: "replaced"; event: RoundtableEvent }
  | { outcome: "responded"; message: RespondMessage; options: RespondOptions }
  /** A hook threw, passed its timeout or returned something that is no event (logged already). */
  | { outcome: "failed"; error: string };

/** What a hook's `context` reaches: where the event happened and the chat's history. */
export interface HookScope {
  world: string;
  chatKey: string;
  agent?: string;
  history(n: number): Promise<HookMessage[]>;
}

/** The configured policy modules (top-level, then the world's own). */
export interface EventPolicy {
  /** Whether any module applies to the world (else no event is built at all). */
  appliesTo(world: string): boolean;
  /** Run the world's modules on the event, in order. Never throws: a failure is an outcome. */
  decide(event: RoundtableEvent, scope: HookScope): Promise<HookDecision>;
}

/** A stored outcome (`HookOutcome`, migration 0011). */
export interface HookOutcomeRecord {
  /** `message:<message id>` or `tool_call:<turn id>:<step>`. */
  key: string;
  chatKey: string;
  kind: RoundtableEvent["type"];
  outcome: HookDecision["outcome"];
  /** The event as the hooks were given it. */
  event: RoundtableEvent;
  /** The decision itself (the replacing event, the programmatic message). */
  decision: HookDecision;
  createdAt: Date;
}

/** What a stored outcome changes in the same transaction. */
export interface HookEffects {
  /** A message's text as the policy changed it (the platform payload is kept). */
  messageText?: { id: string; text: string };
  /** Calls' arguments as the policy changed them. */
  callArguments?: { id: string; argumentsJson: string }[];
}

/** Stored history for `roundtable replay`, oldest first. */
export interface ReplayHistory {
  messages: MessageRecord[];
  calls: ToolCallRecord[];
  /** Chat key → world name. */
  worldsOfChats: ReadonlyMap<string, string>;
}

/** The hooks' part of the `Store`. */
export interface HookOutcomeStore {
  getHookOutcome(key: string): Promise<HookOutcomeRecord | undefined>;
  /**
   * Store an outcome with its effects, in one transaction, unless one is stored under its key
   * already (another process, an earlier run): the first one wins and is returned either way.
   */
  recordHookOutcome(record: Omit<HookOutcomeRecord, "createdAt">, effects: HookEffects): Promise<HookOutcomeRecord>;
  /** Messages and tool calls stored since `since`, oldest first (read only). */
  replayHistory(since: Date): Promise<ReplayHistory>;
}
