import { loadConfig } from "../config/load-config.js";
import { nextDueTimes } from "../world/autonomous/cron-times.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { formatTable } from "./format-table.js";

export const schedulesCommand: CliCommand = {
  name: "schedules",
  summary: "List the configured schedules and each one's next three due times",
  help: `Usage: roundtable schedules [--config FILE] [--json]

Prints each schedule of the config (schedules[]): its name, world, chat, agent, cron
expression and timezone, and its next three due times (UTC, ISO 8601), computed now. Reads
only the config; no database, no network.

Options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  --json          One JSON array instead of the table
  -h, --help      Show this help`,
  options: { json: { type: "boolean" } },
  async run(values, context) {
    const { config } = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    const now = new Date();
    const schedules = config.schedules.map((schedule) => ({
      name: schedule.name,
      world: schedule.world,
      chat: `${schedule.chat.platform}:${schedule.chat.id}`,
      agent: schedule.agent,
      cron: schedule.cron,
      timezone: schedule.timezone,
      missed: schedule.missed,
      next: nextDueTimes(schedule, now, 3).map((due) => due.toISOString()),
    }));
    if (values.json === true) {
      context.stdout.write(`${JSON.stringify(schedules, null, 2)}\n`);
      return exitCodes.ok;
    }
    if (schedules.length === 0) {
      context.stdout.write("No schedules are configured (schedules: in the config).\n");
      return exitCodes.ok;
    }
    const table = formatTable(
      ["NAME", "WORLD", "CHAT", "AGENT", "CRON", "TIMEZONE", "NEXT DUE (UTC)"],
      schedules.map((schedule) => [
        schedule.name,
        schedule.world,
        schedule.chat,
        schedule.agent,
        schedule.cron,
        schedule.timezone,
        schedule.next.join(", "),
      ]),
    );
    context.stdout.write(`${table}\n`);
    return exitCodes.ok;
  },
};
