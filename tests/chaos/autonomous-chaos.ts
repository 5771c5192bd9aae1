import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Life } from "./judge-doubles.js";

/**
 * `--autonomous` of the chaos run (docs/schedules-and-triggers.md): a schedule on a minute cron
 * and a trigger, each in a chat of its own next to the load's chats (same world, processes,
 * queue and kills). The trigger is POSTed signed deliveries during the load, each with its own
 * `X-GitHub-Delivery`, and now and then one repeated on purpose. The judge: every minute due
 * while the run ran has one stored run, one "⏰ tick" line and one answer; every accepted delivery
 * one run, one "⚡ hook" line and one answer; a repeated one the first run's id and nothing new.
 */

export const scheduleName = "tick";
export const triggerName = "hook";
const secret = "chaos-hook-secret";

/** The config's `schedules:` and `triggers:` for the two chats (YAML lines). */
export function autonomousConfigLines(scheduleChat: number, triggerChat: number): string[] {
  return [
    "schedules:",
    `  - { name: ${scheduleName}, world: main, chat: { platform: telegram, id: "${scheduleChat}" }, agent: alice, cron: "* * * * *", prompt: "chaos tick" }`,
    "triggers:",
    `  - { name: ${triggerName}, world: main, chat: { platform: telegram, id: "${triggerChat}" }, agent: bob, secret: ${secret}, prompt: "chaos hook {{body}}" }`,
  ];
}

/** One delivery as the harness sent it: accepted (202) with its run id, or never answered. */
export interface Delivery {
  id: string;
  runId?: string;
  /** POSTs made (a kill may cut one; it is sent again with the same id, as GitHub redelivers). */
  attempts: number;
  /** Repeats sent on purpose after it was accepted, and the run ids they were answered with. */
  repeats: string[];
}

/**
 * POSTs a delivery every `everyMs` to a random live process until stopped; one in three POSTs
 * repeats an accepted delivery instead. A POST that gets no 202 (the process was killed, the
 * database away) is sent again, same id, for up to 60 s.
 */
export class TriggerSender {
  readonly deliveries: Delivery[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly livePorts: () => number[],
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.loop = (async () => {
      let count = 0;
      while (!this.stopped) {
        await sleep(this.everyMs * (0.5 + Math.random()));
        if (this.stopped) break;
        count += 1;
        const accepted = this.deliveries.filter((delivery) => delivery.runId !== undefined);
        const again = count % 3 === 0 ? accepted[Math.floor(Math.random() * accepted.length)] : undefined;
        if (again) {
          const runId = await this.post(again.id);
          if (runId !== undefined) again.repeats.push(runId);
          continue;
        }
        const delivery: Delivery = { id: `d${this.deliveries.length + 1}`, attempts: 0, repeats: [] };
        this.deliveries.push(delivery);
        const runId = await this.post(delivery.id, delivery);
        if (runId !== undefined) delivery.runId = runId;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** POSTs delivery `id` until a process answers 202; its run id (undefined after 60 s). */
  private async post(id: string, delivery?: Delivery): Promise<string | undefined> {
    const body = JSON.stringify({ delivery: id });
    const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    for (let waited = 0; waited < 60_000; waited += 500) {
      const ports = this.livePorts();
      const port = ports[Math.floor(Math.random() * ports.length)];
      if (port !== undefined) {
        if (delivery) delivery.attempts += 1;
        try {
          const answer = await fetch(`http://127.0.0.1:${port}/triggers/${triggerName}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-github-delivery": id,
              "x-hub-signature-256": signature,
            },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          if (answer.status === 202) return ((await answer.json()) as { run: string }).run;
        } catch {
          // killed mid-request, or not listening yet: sent again
        }
      }
      await sleep(500);
    }
    return undefined;
  }
}

/** The figures of the autonomous part of a run (all the lists must be empty). */
export interface AutonomousReport {
  /** Minutes due between the first process's start and the end of the load. */
  minutesDue: number;
  /** Schedule runs stored, "⏰ tick" lines and answers in its chat. */
  scheduleRuns: number;
  scheduleLines: number;
  scheduleAnswers: number;
  /** Due minutes (ISO) with no stored run, or no line or answer for one. */
  scheduleLost: string[];
  /** Occurrences shown or answered more than once (extra lines or answers). */
  scheduleDoubled: number;
  deliveriesSent: number;
  deliveriesAccepted: number;
  /** Deliveries never accepted within 60 s (the harness gave up on them). */
  deliveriesRefused: number;
  repeatsSent: number;
  /** Repeats answered with another run id than the first (must be none). */
  repeatsStartedNew: string[];
  triggerRuns: number;
  triggerLines: number;
  /** Accepted deliveries with no answer, or answered more than once. */
  triggerLost: string[];
  triggerDoubled: string[];
}

/**
 * Judges the two chats. `posts`: every text the bot posted there (in order); `runs`: the stored
 * `AutonomousRun` rows; `fromMs`/`toMs`: wall-clock bounds of the run (the first process ready,
 * the end of the load less the time an occurrence needs to show).
 */
export function judgeAutonomous(input: {
  schedulePosts: string[];
  triggerPosts: string[];
  runs: { id: string; source: string; occurrence: string }[];
  deliveries: Delivery[];
  fromMs: number;
  toMs: number;
}): AutonomousReport {
  const due: string[] = [];
  for (let minute = Math.ceil(input.fromMs / 60_000) * 60_000; minute <= input.toMs; minute += 60_000)
    due.push(new Date(minute).toISOString());
  const scheduleRuns = input.runs.filter((run) => run.source === "schedule");
  const stored = new Set(scheduleRuns.map((run) => run.occurrence));
  const lines = input.schedulePosts.filter((text) => text.includes(`⏰ ${scheduleName}`)).length;
  const answers = input.schedulePosts.filter((text) => /\bre tick ok\b/.test(text)).length;
  const scheduleLost = due.filter((minute) => !stored.has(minute));
  // Runs stored (those due in the run, and any just after) each need one line and one answer.
  const missingShown = Math.max(0, scheduleRuns.length - Math.min(lines, answers));
  for (let index = 0; index < missingShown; index++)
    scheduleLost.push(`a stored run not shown or answered (${index + 1})`);
  const triggerRuns = input.runs.filter((run) => run.source === "trigger");
  const accepted = input.deliveries.filter((delivery) => delivery.runId !== undefined);
  const triggerLost: string[] = [];
  const triggerDoubled: string[] = [];
  for (const delivery of accepted) {
    const count = input.triggerPosts.filter((text) => new RegExp(`\\bre ${delivery.id} ok\\b`).test(text)).length;
    if (count === 0) triggerLost.push(delivery.id);
    if (count > 1) triggerDoubled.push(delivery.id);
  }
  const triggerLines = input.triggerPosts.filter((text) => text.includes(`⚡ ${triggerName}`)).length;
  if (triggerLines > accepted.length) triggerDoubled.push(`${triggerLines - accepted.length} extra ⚡ lines`);
  if (triggerLines < accepted.length) triggerLost.push(`${accepted.length - triggerLines} ⚡ lines missing`);
  if (triggerRuns.length !== accepted.length)
    triggerDoubled.push(`${triggerRuns.length} trigger runs stored for ${accepted.length} accepted deliveries`);
  return {
    minutesDue: due.length,
    scheduleRuns: scheduleRuns.length,
    scheduleLines: lines,
    scheduleAnswers: answers,
    scheduleLost,
    scheduleDoubled: Math.max(0, lines - scheduleRuns.length) + Math.max(0, answers - scheduleRuns.length),
    deliveriesSent: input.deliveries.length,
    deliveriesAccepted: accepted.length,
    deliveriesRefused: input.deliveries.length - accepted.length,
    repeatsSent: accepted.reduce((sum, delivery) => sum + delivery.repeats.length, 0),
    repeatsStartedNew: accepted.flatMap((delivery) =>
      delivery.repeats.filter((runId) => runId !== delivery.runId).map((runId) => `${delivery.id} → ${runId}`),
    ),
    triggerRuns: triggerRuns.length,
    triggerLines,
    triggerLost,
    triggerDoubled,
  };
}

/**
 * The first minute (wall clock, ms) at or after `fromMs` when a process was up (ready, not yet
 * killed). Minutes before it are no occurrence: a schedule that never ran has missed nothing
 * (docs/schedules-and-triggers.md, `missed: once`); from the first run on, a minute passed while
 * every process was down is caught up at the next start, so every later minute is due.
 */
export function firstMinuteUp(lives: readonly Life[], timeOrigin: number, fromMs: number): number {
  const up = (minute: number) =>
    lives.some(
      (life) =>
        life.readyAt !== undefined &&
        timeOrigin + life.readyAt <= minute &&
        (life.killedAt === undefined || timeOrigin + life.killedAt > minute),
    );
  let minute = Math.ceil(fromMs / 60_000) * 60_000;
  for (let tries = 0; tries < 60 && !up(minute); tries++) minute += 60_000;
  return minute;
}

/** The report's table: one row for the schedule, one for the trigger. */
export function autonomousTable(report: AutonomousReport): string {
  return [
    "| kind | due / accepted | stored runs | lines | answered once | lost | doubled |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    `| schedule (* * * * *) | ${report.minutesDue} minutes | ${report.scheduleRuns} | ${report.scheduleLines} | ${report.scheduleAnswers} | ${report.scheduleLost.length} | ${report.scheduleDoubled} |`,
    `| trigger (${report.deliveriesSent} sent, ${report.repeatsSent} repeats, ${report.repeatsStartedNew.length} started anew) | ${report.deliveriesAccepted} | ${report.triggerRuns} | ${report.triggerLines} | ${report.deliveriesAccepted - report.triggerLost.length - report.triggerDoubled.length} | ${report.triggerLost.length} | ${report.triggerDoubled.length} |`,
  ].join("\n");
}

/** Failures in the report (0: none lost, none doubled). */
export function autonomousFailures(report: AutonomousReport): number {
  return (
    report.scheduleLost.length +
    report.scheduleDoubled +
    report.deliveriesRefused +
    report.repeatsStartedNew.length +
    report.triggerLost.length +
    report.triggerDoubled.length
  );
}
