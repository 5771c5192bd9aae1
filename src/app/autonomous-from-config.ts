import type { Config } from "../config/schema.js";
import type { ChatRef } from "../world/chat-ref.js";
import type { ScheduleSettings } from "../world/autonomous/scheduler.js";
import type { TriggerSettings } from "../http/trigger-routes.js";

/** A schedule's or trigger's chat as a chat reference (the console and web name their world). */
function chatOf(entry: { world: string; chat: { platform: ChatRef["platform"]; id: string } }): ChatRef {
  const { platform, id } = entry.chat;
  return platform === "console" || platform === "web"
    ? { platform, workspace: entry.world, channel: id }
    : { platform, channel: id };
}

/** `schedules[]` as the scheduler runs them. */
export function schedulesFrom(config: Pick<Config, "schedules">): ScheduleSettings[] {
  return config.schedules.map((schedule) => ({
    name: schedule.name,
    world: schedule.world,
    chat: chatOf(schedule),
    agent: schedule.agent,
    cron: schedule.cron,
    timezone: schedule.timezone,
    prompt: schedule.prompt,
    missed: schedule.missed,
  }));
}

/** `triggers[]` as their routes serve them. */
export function triggersFrom(config: Pick<Config, "triggers">): TriggerSettings[] {
  return config.triggers.map((trigger) => ({
    name: trigger.name,
    world: trigger.world,
    chat: chatOf(trigger),
    agent: trigger.agent,
    secret: trigger.secret,
    prompt: trigger.prompt,
  }));
}
