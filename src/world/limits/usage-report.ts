// What `/usage` shows (and the operator view): a person's, a chat's and the world's use today
// and this month, each against the caps of `worlds[].limits` that apply (docs/budgets.md).
import type { BudgetScope, BudgetStore } from "../stores/budget-store.js";
import type { WorldSettings } from "../world-settings.js";
import { type BudgetPeriod, capsThatApply, useOf } from "./budget-caps.js";
import { utcDay } from "./utc-day.js";

/** One cap as a report shows it. */
export interface ReportedCap {
  name: string;
  unit: "tokens" | "costUsd";
  used: number;
  /** The cap, with what approvals raised it by this period. */
  allowed: number;
}

/** One subject's use in one period. */
export interface UsageLine {
  scope: Exclude<BudgetScope, "agent">;
  subject: string;
  period: BudgetPeriod;
  /** `YYYY-MM-DD` or `YYYY-MM`. */
  periodKey: string;
  calls: number;
  tokens: number;
  costUsd: number;
  caps: ReportedCap[];
}

/** The use of a person (the chain starter's id), a chat and the world, today and this month. */
export async function usageReport(
  store: Pick<BudgetStore, "readBuckets">,
  world: Pick<WorldSettings, "name" | "limits">,
  who: { chatKey: string; person: string },
  now: Date,
): Promise<UsageLine[]> {
  const day = utcDay(now);
  const month = day.slice(0, 7);
  const subjects: [UsageLine["scope"], string][] = [
    ["person", who.person],
    ["chat", who.chatKey],
    ["world", ""],
  ];
  const keys = subjects.flatMap(([scope, subject]) => [
    { scope, subject, period: day },
    { scope, subject, period: month },
  ]);
  const buckets = await store.readBuckets(world.name, keys);
  const caps = capsThatApply(world.limits, { agent: "", chatKey: who.chatKey, person: who.person, day, month });
  return keys.map((key) => {
    const bucket = buckets.find(
      (candidate) =>
        candidate.scope === key.scope && candidate.subject === key.subject && candidate.period === key.period,
    );
    const period: BudgetPeriod = key.period === day ? "day" : "month";
    return {
      scope: key.scope,
      subject: key.subject,
      period,
      periodKey: key.period,
      calls: bucket?.calls ?? 0,
      tokens: bucket?.tokens ?? 0,
      costUsd: bucket?.costUsd ?? 0,
      caps: caps
        .filter((cap) => cap.scope === key.scope && cap.period === key.period)
        .map((cap) => ({ name: cap.name, unit: cap.unit, ...useOf(cap, buckets) })),
    };
  });
}

/** `1.50 USD` (four decimals where two would round a cost away). */
export function usd(amount: number): string {
  const two = amount.toFixed(2);
  return `${Number(two) === Number(amount.toFixed(6)) ? two : amount.toFixed(4)} USD`;
}

const amount = (unit: ReportedCap["unit"], value: number) => (unit === "costUsd" ? usd(value) : `${value} tokens`);

/** The `/usage` answer: one line per subject and period, with its caps. */
export function usageText(lines: readonly UsageLine[], personName: string): string {
  const label = (line: UsageLine) =>
    line.scope === "person" ? `You (${personName})` : line.scope === "chat" ? "This chat" : "This world";
  const rows = lines.map((line) => {
    const when = line.period === "day" ? `today (${line.periodKey})` : `this month (${line.periodKey})`;
    const caps = line.caps.map(
      (cap) => `${cap.name}: ${amount(cap.unit, cap.used)} of ${amount(cap.unit, cap.allowed)}`,
    );
    const capText = caps.length === 0 ? "no cap" : caps.join("; ");
    return `${label(line)}, ${when}: ${usd(line.costUsd)}, ${line.tokens} tokens (${capText})`;
  });
  return ["Model usage (UTC):", ...rows].join("\n");
}
