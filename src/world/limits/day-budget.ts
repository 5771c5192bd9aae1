import type { WorldSettings } from "../world-settings.js";
import type { AccountingStore, UsageChange } from "../accounting-store.js";
import { nextUtcMidnight, roughSpan, utcDay } from "./utc-day.js";

/** A world past one of its day's limits. */
export interface BudgetExceeded {
  limit: "tokensPerDay" | "costPerDay";
  used: number;
  allowed: number;
  /** What the call about to be made would add (its estimated input), when that is what passes the limit. */
  needed?: number;
  resetsAt: Date;
}

/**
 * Whether a world has used up today's (UTC) `tokensPerDay` or `costPerDay`. Past either, the
 * world makes no model call until 00:00 UTC.
 */
export async function dayBudgetExceeded(
  store: Pick<AccountingStore, "listUsage">,
  world: Pick<WorldSettings, "name" | "limits">,
  now: Date,
): Promise<BudgetExceeded | undefined> {
  const { tokensPerDay, costPerDay } = world.limits;
  if (tokensPerDay === undefined && costPerDay === undefined) return undefined;
  const { tokens, cost } = await usedToday(store, world.name, utcDay(now));
  const resetsAt = nextUtcMidnight(now);
  if (tokensPerDay !== undefined && tokens >= tokensPerDay) {
    return { limit: "tokensPerDay", used: tokens, allowed: tokensPerDay, resetsAt };
  }
  if (costPerDay !== undefined && cost >= costPerDay) {
    return { limit: "costPerDay", used: cost, allowed: costPerDay, resetsAt };
  }
  return undefined;
}

/**
 * Charge a model call's estimate (`estimate`: its day, tokens and cost) before it is sent,
 * only if the world's day stays within `tokensPerDay` and `costPerDay` with it; the limit it
 * would pass, else undefined. Atomic in the store: 32 calls at once cannot each pass a check
 * only one fits (the estimate is settled to the provider's figures after the call).
 */
export async function reserveDayBudget(
  store: Pick<AccountingStore, "listUsage" | "reserveUsage">,
  world: Pick<WorldSettings, "name" | "limits">,
  estimate: UsageChange,
  now: Date,
): Promise<BudgetExceeded | undefined> {
  const { tokensPerDay, costPerDay } = world.limits;
  const caps = {
    ...(tokensPerDay === undefined ? {} : { tokens: tokensPerDay }),
    ...(costPerDay === undefined ? {} : { costUsd: costPerDay }),
  };
  if (await store.reserveUsage(estimate, caps)) return undefined;
  const { tokens, cost } = await usedToday(store, world.name, estimate.day);
  const resetsAt = nextUtcMidnight(now);
  const neededTokens = estimate.inputTokens + estimate.outputTokens;
  if (tokensPerDay !== undefined && tokens + neededTokens > tokensPerDay) {
    return { limit: "tokensPerDay", used: tokens, allowed: tokensPerDay, needed: neededTokens, resetsAt };
  }
  return { limit: "costPerDay", used: cost, allowed: costPerDay ?? 0, needed: estimate.costUsd, resetsAt };
}

async function usedToday(
  store: Pick<AccountingStore, "listUsage">,
  world: string,
  day: string,
): Promise<{ tokens: number; cost: number }> {
  const rows = (await store.listUsage({ world, fromDay: day })).filter((row) => row.day === day);
  return {
    tokens: rows.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0),
    cost: rows.reduce((sum, row) => sum + row.costUsd, 0),
  };
}

/** The notice for a world past its day's budget, naming the limit and when it resets. */
export function budgetNotice(exceeded: BudgetExceeded, now: Date): string {
  const cost = exceeded.limit === "costPerDay";
  const amount = (value: number) => (cost ? `$${value.toFixed(2)}` : `${value}`);
  const amounts = `${amount(exceeded.allowed)}${cost ? "" : " tokens"} a day, ${amount(exceeded.used)} used`;
  const wait = roughSpan(exceeded.resetsAt.getTime() - now.getTime());
  const reached =
    exceeded.needed === undefined || exceeded.used >= exceeded.allowed
      ? "reached its daily budget"
      : `cannot make the next model call within its daily budget (it needs about ${amount(exceeded.needed)}${cost ? "" : " tokens"})`;
  return `This world ${reached} (${exceeded.limit}: ${amounts}); the agents answer again after 00:00 UTC (in ${wait}).`;
}
