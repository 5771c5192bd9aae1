/**
 * A schedule's due times: a five-field cron expression read in an IANA timezone, by croner (the
 * one engine both `check` and the scheduler use). Across a DST change a local time that does
 * not exist runs at the first time after it, and one that exists twice runs once.
 */
import { Cron } from "croner";

/** A cron expression (minute hour day-of-month month day-of-week) and its timezone. */
export interface CronSpec {
  cron: string;
  timezone: string;
}

function cronOf(spec: CronSpec): Cron {
  return new Cron(spec.cron.trim(), { timezone: spec.timezone, paused: true });
}

/** Why the expression or the timezone cannot be used (for a config error), or undefined. */
export function cronProblem(spec: CronSpec): { field: "cron" | "timezone"; message: string } | undefined {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: spec.timezone });
  } catch {
    return {
      field: "timezone",
      message: `unknown timezone ${JSON.stringify(spec.timezone)} (expected an IANA name such as Europe/Berlin or UTC)`,
    };
  }
  const fields = spec.cron.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      field: "cron",
      message: `expected five fields (minute hour day-of-month month day-of-week), got ${JSON.stringify(spec.cron)}`,
    };
  }
  try {
    if (cronOf(spec).nextRun(new Date(0)) === null)
      return { field: "cron", message: `${JSON.stringify(spec.cron)} is never due` };
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, "") : String(error);
    return { field: "cron", message: `invalid cron expression ${JSON.stringify(spec.cron)}: ${reason}` };
  }
  return undefined;
}

/** The next `count` due times strictly after `after`. */
export function nextDueTimes(spec: CronSpec, after: Date, count: number): Date[] {
  return cronOf(spec).nextRuns(count, after);
}

/** The latest due time at or before `at`, if any. */
export function latestDueTime(spec: CronSpec, at: Date): Date | undefined {
  return cronOf(spec).previousRuns(1, new Date(at.getTime() + 1))[0];
}
