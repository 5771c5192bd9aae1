import type { WorldSettings } from "../world-settings.js";
import type { AccountingStore } from "../stores/accounting-store.js";
import type { BudgetStore } from "../stores/budget-store.js";
import { type AppliedCap, resetText } from "./budget-caps.js";
import { nextUtcMidnight, utcDay } from "./utc-day.js";

/** A world (or its chat, agent or person: `cap`) past one of its budget's caps. */
export interface BudgetExceeded {
  /** The cap's key under `limits` (`costPerDay`, `perPerson.costPerDay`, …). */
  limit: string;
  used: number;
  allowed: number;
  /** What the call about to be made would add (its estimated input), when that is what passes the limit. */
  needed?: number;
  resetsAt: Date;
  /** The cap passed, when it is not the world's day (`limits.costPerDay`, `tokensPerDay`). */
  cap?: AppliedCap;
  /** The person's name, for a person's cap. */
  personName?: string;
}

/**
 * Whether a world has used up today's (UTC) `tokensPerDay` or `costPerDay`. Past either, the
 * world makes no model call until 00:00 UTC.
 */
export async function dayBudgetExceeded(
  store: Pick<AccountingStore, "listUsage"> & Pick<BudgetStore, "readBuckets">,
  world: Pick<WorldSettings, "name" | "limits">,
  now: Date,
): Promise<BudgetExceeded | undefined> {
  const { tokensPerDay: tokenCap, costPerDay: costCap } = world.limits;
  if (tokenCap === undefined && costCap === undefined) return undefined;
  const { tokens, cost } = await usedToday(store, world.name, utcDay(now));
  const resetsAt = nextUtcMidnight(now);
  // What approvals of `overBudget: ask` cards raised today's caps by.
  const [raised] =
    world.limits.overBudget === "ask"
      ? await store.readBuckets(world.name, [{ scope: "world", subject: "", period: utcDay(now) }])
      : [];
  const tokensPerDay = tokenCap === undefined ? undefined : tokenCap + (raised?.raisedTokens ?? 0);
  const costPerDay = costCap === undefined ? undefined : costCap + (raised?.raisedCostUsd ?? 0);
  if (tokensPerDay !== undefined && tokens >= tokensPerDay) {
    return { limit: "tokensPerDay", used: tokens, allowed: tokensPerDay, resetsAt };
  }
  if (costPerDay !== undefined && cost >= costPerDay) {
    return { limit: "costPerDay", used: cost, allowed: costPerDay, resetsAt };
  }
  return undefined;
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

/** The notice past a cap, naming the cap and when it resets (the world's day: as it always read). */
export function budgetNotice(exceeded: BudgetExceeded, now: Date): string {
  const cap = exceeded.cap;
  const cost = cap ? cap.unit === "costUsd" : exceeded.limit === "costPerDay";
  const periodKind = cap?.periodKind ?? "day";
  const amount = (value: number) => (cost ? `$${value.toFixed(2)}` : `${value}`);
  const per = periodKind === "day" ? "a day" : "a month";
  const amounts = `${amount(exceeded.allowed)}${cost ? "" : " tokens"} ${per}, ${amount(exceeded.used)} used`;
  const adjective = periodKind === "day" ? "daily" : "monthly";
  const scope = cap?.scope ?? "world";
  const person = exceeded.personName ?? cap?.subject ?? "";
  const [who, its, answer] =
    scope === "world"
      ? ["This world", "its", "the agents answer again"]
      : scope === "chat"
        ? ["This chat", "its", "the agents answer here again"]
        : scope === "agent"
          ? [cap?.subject ?? "", "its", `${cap?.subject ?? ""} answers again`]
          : [person, "their", `the agents answer ${person} again`];
  const reached =
    exceeded.needed === undefined || exceeded.used >= exceeded.allowed
      ? `reached ${its} ${adjective} budget`
      : `cannot make the next model call within ${its} ${adjective} budget (it needs about ${amount(exceeded.needed)}${cost ? "" : " tokens"})`;
  return `${who} ${reached} (${exceeded.limit}: ${amounts}); ${answer} after ${resetText(periodKind, exceeded.resetsAt, now)}.`;
}
