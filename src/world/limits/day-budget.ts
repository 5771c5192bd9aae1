import type { WorldSettings } from "../world-settings.js";
import type { AccountingStore } from "../accounting-store.js";
import { nextUtcMidnight, roughSpan, utcDay } from "./utc-day.js";

/** A world past one of its day's limits. */
export interface BudgetExceeded {
  limit: "tokensPerDay" | "costPerDay";
  used: number;
  allowed: number;
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
  const today = utcDay(now);
  const rows = (await store.listUsage({ world: world.name, fromDay: today })).filter((row) => row.day === today);
  const tokens = rows.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0);
  const cost = rows.reduce((sum, row) => sum + row.costUsd, 0);
  const resetsAt = nextUtcMidnight(now);
  if (tokensPerDay !== undefined && tokens >= tokensPerDay) {
    return { limit: "tokensPerDay", used: tokens, allowed: tokensPerDay, resetsAt };
  }
  if (costPerDay !== undefined && cost >= costPerDay) {
    return { limit: "costPerDay", used: cost, allowed: costPerDay, resetsAt };
  }
  return undefined;
}

/** The notice for a world past its day's budget, naming the limit and when it resets. */
export function budgetNotice(exceeded: BudgetExceeded, now: Date): string {
  const amounts =
    exceeded.limit === "costPerDay"
      ? `$${exceeded.allowed.toFixed(2)} a day, $${exceeded.used.toFixed(2)} used`
      : `${exceeded.allowed} tokens a day, ${exceeded.used} used`;
  const wait = roughSpan(exceeded.resetsAt.getTime() - now.getTime());
  return `This world reached its daily budget (${exceeded.limit}: ${amounts}); the agents answer again after 00:00 UTC (in ${wait}).`;
}
