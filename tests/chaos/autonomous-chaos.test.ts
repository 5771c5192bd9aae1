import { describe, expect, it } from "vitest";
import { type Delivery, firstMinuteUp, judgeAutonomous } from "./autonomous-chaos.js";
import type { Life } from "./judge-doubles.js";

const minute = (n: number) => Date.UTC(2026, 11, 2, 2, n);
const iso = (n: number) => new Date(minute(n)).toISOString();
const delivery = (id: string, runId?: string, repeats: string[] = []): Delivery => ({
  id,
  attempts: 1,
  repeats,
  ...(runId === undefined ? {} : { runId }),
});
const shown = (count: number) => Array.from({ length: count }, () => ["⏰ tick", "<b>alice:</b> re tick ok"]).flat();

describe("judging the chaos run's schedule and trigger", () => {
  it("passes a run where every minute and every accepted delivery ran once", () => {
    const report = judgeAutonomous({
      schedulePosts: shown(2),
      triggerPosts: ["⚡ hook", "re d1 ok", "⚡ hook", "re d2 ok"],
      runs: [
        { id: "s1", source: "schedule", occurrence: iso(1) },
        { id: "s2", source: "schedule", occurrence: iso(2) },
        { id: "t1", source: "trigger", occurrence: "delivery:d1" },
        { id: "t2", source: "trigger", occurrence: "delivery:d2" },
      ],
      deliveries: [delivery("d1", "t1", ["t1"]), delivery("d2", "t2")],
      fromMs: minute(0) + 1,
      toMs: minute(2) + 5_000,
    });
    expect(report).toMatchObject({ minutesDue: 2, scheduleLost: [], scheduleDoubled: 0, repeatsSent: 1 });
    expect(report.triggerLost).toEqual([]);
    expect(report.triggerDoubled).toEqual([]);
    expect(report.repeatsStartedNew).toEqual([]);
  });

  it("names a minute with no run, a line shown twice, a repeat that started a run and a delivery answered twice", () => {
    const report = judgeAutonomous({
      schedulePosts: [...shown(1), "⏰ tick"],
      triggerPosts: ["⚡ hook", "re d1 ok", "re d1 ok", "⚡ hook"],
      runs: [
        { id: "s1", source: "schedule", occurrence: iso(1) },
        { id: "t1", source: "trigger", occurrence: "delivery:d1" },
        { id: "t2", source: "trigger", occurrence: "delivery:d2" },
      ],
      deliveries: [delivery("d1", "t1", ["t9"]), delivery("d2", "t2")],
      fromMs: minute(0) + 1,
      toMs: minute(2) + 5_000,
    });
    expect(report.scheduleLost).toEqual([iso(2)]);
    expect(report.scheduleDoubled).toBe(1);
    expect(report.repeatsStartedNew).toEqual(["d1 → t9"]);
    expect(report.triggerDoubled).toEqual(["d1"]);
    expect(report.triggerLost).toEqual(["d2"]);
  });

  it("counts minutes from the first one a process was up", () => {
    const timeOrigin = minute(0);
    const lives: Life[] = [
      { slot: 0, pid: 1, startedAt: 50_000, readyAt: 55_000, killedAt: 58_000 },
      { slot: 0, pid: 2, startedAt: 58_500, readyAt: 63_000 },
    ];
    // Minute 1 passed while the only process was starting: the schedule had never run, so missed nothing.
    expect(firstMinuteUp(lives, timeOrigin, minute(0) + 55_000)).toBe(minute(2));
  });
});
