import { describe, expect, it } from "vitest";
import { cronProblem, latestDueTime, nextDueTimes } from "./cron-times.js";

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe("cron due times in a timezone", () => {
  it("weekdays at 9:00 in Berlin: 07:00 UTC in summer, 08:00 in winter, no weekend", () => {
    const spec = { cron: "0 9 * * 1-5", timezone: "Europe/Berlin" };
    expect(iso(nextDueTimes(spec, new Date("2026-03-27T12:00:00Z"), 3))).toEqual([
      "2026-03-30T07:00:00.000Z",
      "2026-03-31T07:00:00.000Z",
      "2026-04-01T07:00:00.000Z",
    ]);
    expect(iso(nextDueTimes(spec, new Date("2026-01-02T12:00:00Z"), 1))).toEqual(["2026-01-05T08:00:00.000Z"]);
  });

  it("across DST: a local time that does not exist runs once right after the gap; one that exists twice runs once", () => {
    const spring = { cron: "30 2 * * *", timezone: "Europe/Berlin" };
    const days = iso(nextDueTimes(spring, new Date("2026-03-28T00:00:00Z"), 3));
    expect(days).toHaveLength(3);
    expect(days[0]).toBe("2026-03-28T01:30:00.000Z");
    expect(days[1]?.startsWith("2026-03-29T")).toBe(true);
    expect(days[2]).toBe("2026-03-30T00:30:00.000Z");
    const autumn = { cron: "30 2 * * *", timezone: "Europe/Berlin" };
    const around = iso(nextDueTimes(autumn, new Date("2026-10-24T12:00:00Z"), 3));
    expect(around.filter((due) => due.startsWith("2026-10-25T"))).toHaveLength(1);
  });

  it("the latest due time at or before a moment includes the moment itself", () => {
    const minute = { cron: "* * * * *", timezone: "UTC" };
    expect(latestDueTime(minute, new Date("2026-01-01T00:05:00Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
    expect(latestDueTime(minute, new Date("2026-01-01T00:05:59Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
  });

  it("says what is wrong with an expression or a timezone", () => {
    expect(cronProblem({ cron: "0 9 * * 1-5", timezone: "UTC" })).toBeUndefined();
    expect(cronProblem({ cron: "0 9 * * *", timezone: "Mars/Base" })?.field).toBe("timezone");
    expect(cronProblem({ cron: "0 9 * *", timezone: "UTC" })?.message).toMatch(/expected five fields/);
    expect(cronProblem({ cron: "0 25 * * *", timezone: "UTC" })?.message).toMatch(/invalid cron expression/);
    expect(cronProblem({ cron: "0 0 9 * * *", timezone: "UTC" })?.message).toMatch(/expected five fields/);
  });
});
