// The storage budgets read and write (docs/budgets.md): usage per world, scope, subject and
// period, the caps' raises, and the alerts posted once. Part of the `Store`.
import type { UsageChange } from "./accounting-store.js";

/** What a bucket of usage belongs to: the world, one agent, one chat, or one person (the chain starter). */
export type BudgetScope = "world" | "agent" | "chat" | "person";

/** One bucket: a scope's subject (`""` for the world) in a period (`YYYY-MM-DD` or `YYYY-MM`, UTC). */
export interface BudgetBucketKey {
  scope: BudgetScope;
  subject: string;
  period: string;
}

/**
 * A model call's usage (or a correction of it) for every bucket it is charged to: the world,
 * the agent, the chat and the person, each for the UTC day and the month. `change.day` is the
 * day; the agent's day in `UsageDay` is charged as well.
 */
export interface BudgetCharge extends UsageChange {
  chatKey: string;
  /** The chain starter's id (a platform user id, `schedule:<name>`, `trigger:<name>`). */
  person: string;
  /** The UTC month, `YYYY-MM`. */
  month: string;
}

/** A cap on one bucket; tokens are input plus output tokens. */
export interface BucketCap extends BudgetBucketKey {
  tokens?: number;
  costUsd?: number;
}

/** A bucket's use, and what approvals raised its caps by in its period. */
export interface BucketUse extends BudgetBucketKey {
  tokens: number;
  costUsd: number;
  raisedTokens: number;
  raisedCostUsd: number;
}

/** A stored bucket, as `roundtable usage --by` lists it. */
export interface BucketRecord extends BucketUse {
  world: string;
  calls: number;
  estimatedCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** A cap raised by an approval, for one bucket's period: tokens or USD added to the cap. */
export interface BudgetRaise extends BudgetBucketKey {
  approvalId: string;
  world: string;
  /** The cap's name, e.g. `perPerson.costPerDay`. */
  cap: string;
  unit: "tokens" | "costUsd";
  amount: number;
  decidedBy: string;
}

/** An alert posted for a cap's bucket crossing a threshold (percent) in a period. */
export interface BudgetAlertKey {
  world: string;
  cap: string;
  subject: string;
  period: string;
  threshold: number;
}

/** The budget half of the storage port; each method is one atomic step, also between processes. */
export interface BudgetStore {
  /**
   * Charge `change` to its buckets (and the agent's `UsageDay`) only if every capped bucket,
   * with it, stays within its cap plus what approvals raised it by; the charged buckets after
   * the change, or undefined (nothing charged) when a cap would be passed. Concurrent charges
   * cannot all pass a check only one of them fits. Without caps it always charges (a
   * correction may be negative).
   */
  chargeBudget(change: BudgetCharge, caps: readonly BucketCap[]): Promise<BucketUse[] | undefined>;
  /** The buckets of a world with these keys (a bucket never charged is left out). */
  readBuckets(world: string, keys: readonly BudgetBucketKey[]): Promise<BucketRecord[]>;
  /** Stored buckets of a scope in a period, for `usage --by` (`world` narrows them). */
  listBuckets(filter: { world?: string; scope: BudgetScope; period: string }): Promise<BucketRecord[]>;
  /** Record a raise and add it to its bucket's cap, once per approval; false when recorded already. */
  raiseBudget(raise: BudgetRaise): Promise<boolean>;
  /** Record that an alert was posted; false when it was already (by this or another process). */
  recordBudgetAlert(alert: BudgetAlertKey): Promise<boolean>;
}
