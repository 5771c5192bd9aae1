// Which caps of `worlds[].limits` apply to a model call (the world's, its chat's, its agent's
// and its chain starter's, per day and month), which one a call would pass, and the texts that
// name a cap: the notice past it, the alert at a threshold, the question of an `ask` card.
import type { BucketCap, BucketUse, BudgetScope } from "../stores/budget-store.js";
import type { BudgetCapSettings, WorldLimitSettings } from "../world-settings.js";
import { nextUtcMidnight, roughSpan } from "./utc-day.js";

/** A cap's period: the UTC day or the calendar month (UTC). */
export type BudgetPeriod = "day" | "month";

/** The subjects a call is charged to, and its day and month. */
export interface BudgetSubjects {
  agent: string;
  chatKey: string;
  /** The chain starter's id: a platform user id, `schedule:<name>` or `trigger:<name>`. */
  person: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** `YYYY-MM`, UTC. */
  month: string;
}

/** One configured cap as it applies to a call: its name in the config, its bucket, its unit and amount. */
export interface AppliedCap {
  /** The key under `limits`: `costPerDay`, `perPerson.costPerDay`, `perAgent.alice.tokensPerMonth`. */
  name: string;
  scope: BudgetScope;
  subject: string;
  /** The bucket's period, `YYYY-MM-DD` or `YYYY-MM`. */
  period: string;
  periodKind: BudgetPeriod;
  unit: "tokens" | "costUsd";
  allowed: number;
}

/** The default `limits.alerts`. */
export const defaultAlerts: readonly number[] = [80, 100];

const capKeys = [
  ["tokensPerDay", "day", "tokens"],
  ["costPerDay", "day", "costUsd"],
  ["tokensPerMonth", "month", "tokens"],
  ["costPerMonth", "month", "costUsd"],
] as const;

/** Whether any cost cap is set in a world's limits (an unpriced model then needs `unpriced: count-tokens`). */
export function hasCostCap(limits: WorldLimitSettings): boolean {
  const sets: (BudgetCapSettings | undefined)[] = [limits, limits.perPerson, limits.perChat];
  sets.push(...Object.values(limits.perAgent ?? {}));
  return sets.some((caps) => caps?.costPerDay !== undefined || caps?.costPerMonth !== undefined);
}

/** The caps that apply to a call with these subjects, the world's first. */
export function capsThatApply(limits: WorldLimitSettings, subjects: BudgetSubjects): AppliedCap[] {
  const applied: AppliedCap[] = [];
  const add = (caps: BudgetCapSettings | undefined, prefix: string, scope: BudgetScope, subject: string) => {
    if (caps === undefined) return;
    for (const [key, periodKind, unit] of capKeys) {
      const allowed = caps[key];
      if (allowed === undefined) continue;
      const period = periodKind === "day" ? subjects.day : subjects.month;
      applied.push({ name: `${prefix}${key}`, scope, subject, period, periodKind, unit, allowed });
    }
  };
  add(limits, "", "world", "");
  add(limits.perAgent?.[subjects.agent], `perAgent.${subjects.agent}.`, "agent", subjects.agent);
  add(limits.perChat, "perChat.", "chat", subjects.chatKey);
  add(limits.perPerson, "perPerson.", "person", subjects.person);
  return applied;
}

/** The caps as the store checks them: one per bucket, with its token and cost amounts. */
export function bucketCapsOf(caps: readonly AppliedCap[]): BucketCap[] {
  const byBucket = new Map<string, BucketCap>();
  for (const cap of caps) {
    const key = `${cap.scope}\u0000${cap.subject}\u0000${cap.period}`;
    const bucket = byBucket.get(key) ?? { scope: cap.scope, subject: cap.subject, period: cap.period };
    bucket[cap.unit] = cap.allowed;
    byBucket.set(key, bucket);
  }
  return [...byBucket.values()];
}

/** A cap's use in its period, and the cap with what approvals raised it by. */
export function useOf(cap: AppliedCap, buckets: readonly BucketUse[]): { used: number; allowed: number } {
  const bucket = buckets.find(
    (candidate) =>
      candidate.scope === cap.scope && candidate.subject === cap.subject && candidate.period === cap.period,
  );
  if (!bucket) return { used: 0, allowed: cap.allowed };
  return cap.unit === "tokens"
    ? { used: bucket.tokens, allowed: cap.allowed + bucket.raisedTokens }
    : { used: bucket.costUsd, allowed: cap.allowed + bucket.raisedCostUsd };
}

/** When a cap's period ends: 00:00 UTC of the next day, or of the next month's first day. */
export function capResetsAt(periodKind: BudgetPeriod, now: Date): Date {
  if (periodKind === "day") return nextUtcMidnight(now);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** `2.00 USD` or `1200 tokens`: an amount of a cap's unit, as cards and alerts show it. */
export function capAmount(unit: AppliedCap["unit"], value: number): string {
  return unit === "costUsd" ? `${value.toFixed(2)} USD` : `${Math.round(value)} tokens`;
}

/** Whose budget a cap is, for texts: `Ana's`, `alice's`, `this chat's`, `this world's`. */
export function capOwner(cap: Pick<AppliedCap, "scope" | "subject">, personName?: string): string {
  if (cap.scope === "world") return "this world's";
  if (cap.scope === "chat") return "this chat's";
  return `${cap.scope === "person" ? (personName ?? cap.subject) : cap.subject}'s`;
}

const adjectiveOf = (period: BudgetPeriod) => (period === "day" ? "daily" : "monthly");

/** When a cap resets, as texts say it: `00:00 UTC (in 3 hours)` or `2027-01-01 00:00 UTC (in 12 days)`. */
export function resetText(periodKind: BudgetPeriod, resetsAt: Date, now: Date): string {
  const ms = resetsAt.getTime() - now.getTime();
  const span = ms > 48 * 3_600_000 ? `${Math.round(ms / 86_400_000)} days` : roughSpan(ms);
  return `${periodKind === "day" ? "" : `${resetsAt.toISOString().slice(0, 10)} `}00:00 UTC (in ${span})`;
}

/**
 * The alert for a cap's use crossing `threshold` percent: names the cap, the use and when it
 * resets.
 */
export function budgetAlertText(
  cap: AppliedCap,
  use: { used: number; allowed: number },
  threshold: number,
  now: Date,
  personName?: string,
): string {
  const whose = capOwner(cap, personName);
  const resets = resetText(cap.periodKind, capResetsAt(cap.periodKind, now), now);
  return `Budget alert: ${whose} ${adjectiveOf(cap.periodKind)} budget is ${threshold}% used (${cap.name}: ${capAmount(cap.unit, use.used)} of ${capAmount(cap.unit, use.allowed)}); it resets at ${resets}.`;
}

/** The `overBudget: ask` card's question: "alice's call would pass Ana's daily budget (2.00 USD): allow 2.00 USD more today?" */
export function budgetQuestion(
  agent: string,
  cap: AppliedCap,
  allowed: number,
  raise: number,
  personName?: string,
): string {
  const when = cap.periodKind === "day" ? "today" : "this month";
  return `${agent}'s call would pass ${capOwner(cap, personName)} ${adjectiveOf(cap.periodKind)} budget (${capAmount(cap.unit, allowed)}): allow ${capAmount(cap.unit, raise)} more ${when}?`;
}

/** What an approved card adds to a cap: `raiseBy` percent of it (tokens rounded up). */
export function raiseAmount(cap: AppliedCap, raiseBy: number): number {
  const amount = (cap.allowed * raiseBy) / 100;
  return cap.unit === "tokens" ? Math.ceil(amount) : amount;
}
