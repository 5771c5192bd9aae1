/**
 * The scheduler: at each due time of a schedule it records the run (one row per schedule and
 * due time, unique) and queues its turn. Every process runs one; the unique row and the job key
 * make an occurrence run once whichever processes see it (docs/schedules-and-triggers.md).
 */
import type { ChatRef } from "../chat-ref.js";
import type { WorldContext } from "../world-context.js";
import { recordAutonomousRun } from "./autonomous-run.js";
import { type CronSpec, latestDueTime, nextDueTimes } from "./cron-times.js";

/** How old a missed occurrence may be and still run once after downtime (`missed: once`). */
const catchUpWindowMs = 24 * 3_600_000;

/** A schedule as the world runs it (`schedules[]` of the config). */
export interface ScheduleSettings extends CronSpec {
  name: string;
  world: string;
  chat: ChatRef;
  agent: string;
  prompt: string;
  missed: "skip" | "once";
}

export interface SchedulerOptions {
  /** How often due times are looked at (default 1 s; nothing is read until one is due). */
  tickMs?: number;
  /** The chat as its channel knows it (Slack adds the workspace), when the run is recorded. */
  resolveChat?: (chat: ChatRef) => ChatRef;
}

/** Runs the configured schedules in this process. */
export class Scheduler {
  /** Each schedule's next due time not yet handled by this process. */
  private readonly next = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly context: Pick<WorldContext, "store" | "queue" | "logger" | "clock">,
    readonly schedules: readonly ScheduleSettings[],
    private readonly options: SchedulerOptions = {},
  ) {}

  /** Catch up on what downtime missed (`missed: once`), then look at due times every tick. */
  async start(): Promise<void> {
    if (this.schedules.length === 0) return;
    await this.catchUp();
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The latest occurrence each schedule missed while no process ran it: with `missed: once`
   * it runs now if it is at most 24 h old and the schedule ran before (a new schedule missed
   * nothing); with `skip` it is passed over. Later occurrences are the ticks'.
   */
  async catchUp(): Promise<void> {
    const now = this.context.clock();
    for (const schedule of this.schedules) {
      this.next.set(schedule.name, nextDueTimes(schedule, now, 1)[0] ?? farFuture);
      if (schedule.missed !== "once") continue;
      const latest = latestDueTime(schedule, now);
      if (!latest || now.getTime() - latest.getTime() > catchUpWindowMs) continue;
      const [last] = await this.context.store.listAutonomousRuns({ source: "schedule", name: schedule.name, limit: 1 });
      if (!last || Date.parse(last.occurrence) >= latest.getTime()) continue;
      this.context.logger.info(
        { schedule: schedule.name, dueAt: latest.toISOString() },
        "schedule: running the occurrence missed while down (missed: once)",
      );
      await this.run(schedule, latest);
    }
  }

  /**
   * Record the run of every schedule whose due time has come. A tick that comes late (the
   * process stalled, or a test's clock jumped) runs the latest occurrence it passed, once.
   */
  tick(): Promise<void> {
    this.ticking ??= this.dueNow().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async dueNow(): Promise<void> {
    const now = this.context.clock();
    for (const schedule of this.schedules) {
      const next = this.next.get(schedule.name);
      if (next === undefined || next.getTime() > now.getTime()) continue;
      const due = latestDueTime(schedule, now) ?? next;
      try {
        await this.run(schedule, due);
        this.next.set(schedule.name, nextDueTimes(schedule, now, 1)[0] ?? farFuture);
      } catch (error) {
        // Not lost: the next tick tries again (the database may be back by then).
        this.context.logger.error(
          { err: error, schedule: schedule.name },
          "schedule: could not record its run; trying again",
        );
      }
    }
  }

  private async run(schedule: ScheduleSettings, due: Date): Promise<void> {
    const chat = this.options.resolveChat?.(schedule.chat) ?? schedule.chat;
    const { runId, created } = await recordAutonomousRun(this.context, {
      source: "schedule",
      name: schedule.name,
      occurrence: due.toISOString(),
      world: schedule.world,
      agent: schedule.agent,
      chat,
      prompt: schedule.prompt,
    });
    this.context.logger.info(
      { schedule: schedule.name, dueAt: due.toISOString(), runId, ...(created ? {} : { takenBy: "another process" }) },
      created ? "schedule due: run queued" : "schedule due: already run by another process",
    );
  }
}

const farFuture = new Date(8.64e15);
