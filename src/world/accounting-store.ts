import type { ApprovalRecord } from "./records.js";

/** Model usage to add to a world's, agent's and UTC day's totals. */
export interface UsageEntry {
  world: string;
  agent: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** USD, from the agent's price (0 when no price is known). */
  costUsd: number;
}

/** A stored day of one agent's usage in one world. */
export interface UsageDayRecord extends UsageEntry {
  /** Model calls counted. */
  calls: number;
}

/**
 * The storage the limits and the audit read and write: usage per world, agent and day, the
 * count of a person's recent messages, and approvals over a time range. Part of the `Store`.
 */
export interface AccountingStore {
  /** Add one model call's usage (atomic increment; the day's row is created when missing). */
  addUsage(entry: UsageEntry): Promise<void>;
  /** Stored days, oldest first; `fromDay` (`YYYY-MM-DD`) and `world` narrow them. */
  listUsage(filter: { world?: string; fromDay?: string }): Promise<UsageDayRecord[]>;
  /**
   * How many messages a person wrote on a platform (chat keys starting with `<platform>:`) with
   * `after < createdAt <= until`: the per-person message rate.
   */
  countPersonMessages(platform: string, authorId: string, after: Date, until: Date): Promise<number>;
  /** Approvals created at or after `since`, oldest first (the audit). */
  listApprovalsSince(since: Date, world?: string): Promise<ApprovalRecord[]>;
}
