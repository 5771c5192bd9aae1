import type { ApprovalRecord } from "../records.js";

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

/**
 * A change to a world's, agent's and day's usage: tokens and cost to add (negative to correct
 * an estimate once the provider's own figures are known) and how many calls, and of them
 * estimated calls, to add.
 */
export interface UsageChange extends UsageEntry {
  calls: number;
  estimatedCalls: number;
}

/** A stored day of one agent's usage in one world. */
export interface UsageDayRecord extends UsageEntry {
  /** Model calls counted. */
  calls: number;
  /** Of them, calls whose usage the provider did not report (stopped, timed out, failed): estimated. */
  estimatedCalls: number;
}

/** A world's limits for one UTC day; tokens are input plus output tokens. */
export interface DayCaps {
  tokens?: number;
  costUsd?: number;
}

/**
 * The storage the limits and the audit read and write: usage per world, agent and day, the
 * count of a person's recent messages, and approvals over a time range. Part of the `Store`.
 */
export interface AccountingStore {
  /** Add to a day's usage (atomic increment; the day's row is created when missing). */
  addUsage(change: UsageChange): Promise<void>;
  /**
   * Add `change` only if the world's day (all its agents), with it, stays within `caps`; false
   * when it would not. One atomic step, also between processes: concurrent calls cannot all
   * pass a check that only one of them fits.
   */
  reserveUsage(change: UsageChange, caps: DayCaps): Promise<boolean>;
  /** Stored days, oldest first; `fromDay` (`YYYY-MM-DD`) and `world` narrow them. */
  listUsage(filter: { world?: string; fromDay?: string }): Promise<UsageDayRecord[]>;
  /**
   * How many messages a person wrote on a platform (chat keys starting with `<platform>:`) with
   * `after < createdAt <= until`: the per-person message rate. With `upToMessageId`, messages
   * stored at the same `until` after that one are left out (several can share a millisecond,
   * and a later one must not count against an earlier one).
   */
  countPersonMessages(
    platform: string,
    authorId: string,
    after: Date,
    until: Date,
    upToMessageId?: string,
  ): Promise<number>;
  /** Approvals created at or after `since`, oldest first (the audit). */
  listApprovalsSince(since: Date, world?: string): Promise<ApprovalRecord[]>;
}
