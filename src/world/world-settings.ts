import type { Platform } from "./chat-ref.js";

/**
 * What the world needs to know about one world (a room of agents and people). The world has
 * its own settings types so that it never reads the config schema: `src/app` maps the loaded
 * config to these.
 */
export interface WorldSettings {
  name: string;
  /** Agent names, in configured order. */
  agents: string[];
  defaultAgent?: string;
  /** Agent turns in a row (no human message) before the agents stop. */
  turnLimit: number;
  respond: "addressed" | "all";
  afterDenial: "continue" | "wait";
  /** The tools' working directory (relative to the process, when not absolute). */
  workdir?: string;
  /** Who may decide approvals, per platform: user ids, `role:<name>`, `admins`. */
  approvers: Partial<Record<string, string[]>>;
  /** Who may start turns, per platform: user ids, `role:<name>`, `admins`, `*` (default `*`). */
  members: Partial<Record<string, string[]>>;
  /** How long an approval waits for a decision, in milliseconds. */
  approvalTimeout: number;
  /**
   * `approvals.allowAlways`: cards offer *Always allow* to deciders listed by id, and the stored
   * rules match, each for `forMs` (`allowAlwaysFor`) from its making. Absent: off.
   */
  allowAlways?: { forMs: number };
  /** `approvals.quorum`, `remind`, `escalate` (docs/approvals.md, src/world/turn/approvals/quorum.ts). */
  quorum?: Readonly<Record<string, number>>;
  remindMs?: number;
  escalate?: { afterMs: number; to: Partial<Record<string, string[]>> };
  /**
   * `approvals.route` and `approvals.channel` (docs/approvals.md, "Where approval cards go").
   * Absent: every card is posted in the chat where the agent works, and only there.
   */
  cardRouting?: CardRouting;
  /** `approvals.edit`: cards carry *Edit…*, and an approver's edit approves the edited call once. */
  editArguments?: boolean;
  /** Other bots' messages start turns. */
  allowBots: boolean;
  /** A person's message rate and the world's daily budget (`worlds[].limits`). */
  limits: WorldLimitSettings;
}

/** Where a world's cards go besides (or instead of) the chat: the approvers' DMs, one approvals chat. */
export interface CardRouting {
  route: "chat" | "dm" | "both";
  /** The approvals chat, by its platform and id as configured. */
  channel?: { platform: Platform; id: string };
}

/** `worlds[].limits`: messages per person per minute; tokens and USD per UTC day for the world. */
export interface WorldLimitSettings {
  messagesPerMinute: number;
  tokensPerDay?: number;
  costPerDay?: number;
  /** Budgets (docs/budgets.md): the world's month caps (calendar month, UTC). */
  costPerMonth?: number;
  tokensPerMonth?: number;
  /** Caps of each person (the chain starter), each chat and named agents. */
  perPerson?: BudgetCapSettings;
  perChat?: BudgetCapSettings;
  perAgent?: Readonly<Record<string, BudgetCapSettings>>;
  /** Percent thresholds posted once per cap and period (default 80 and 100). */
  alerts?: readonly number[];
  /** Past a cap: a notice (`stop`, the default) or an approval card (`ask`). */
  overBudget?: "stop" | "ask";
  /** What an approved card adds to the cap, in percent of it (default 100). */
  raiseBy?: number;
}

/** One subject's day and month caps; tokens are input plus output tokens, cost in USD. */
export interface BudgetCapSettings {
  costPerDay?: number | undefined;
  tokensPerDay?: number | undefined;
  costPerMonth?: number | undefined;
  tokensPerMonth?: number | undefined;
}

/** What the world needs to know about one agent: its name, identity in chats and turn limits. */
export interface AgentSettings {
  name: string;
  /** The name shown in chats (`agents[].displayName`, default the name). */
  displayName: string;
  /** The picture shown with the agent's posts where the platform allows (`agents[].avatarUrl`). */
  avatarUrl?: string;
  /** One line on what the agent is for (`agents[].description`, shown by `/agents`). */
  description?: string;
  limits: AgentTurnLimits;
}

/** Per-turn limits of an agent. Durations in milliseconds. */
export interface AgentTurnLimits {
  maxSteps: number;
  deadline: number;
  maxToolCallsPerStep: number;
  /** How many times the same tool with the same arguments may run in one turn. */
  maxRepeats: number;
}

/** Which world each chat of a platform belongs to: chat id → world name (`*` for any). */
export type ChatBindings = Partial<Record<Platform, Readonly<Record<string, string>>>>;
