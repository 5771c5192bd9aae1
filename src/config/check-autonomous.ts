import { cronProblem } from "../world/autonomous/cron-times.js";
import type { ConfigProblem } from "./format-config-issues.js";
import type { Config } from "./schema.js";

/**
 * `schedules[]` and `triggers[]`: unique names, a known world and agent (one of the world's),
 * a chat bound to that world, and for a schedule a cron expression and timezone that parse.
 */
export function checkAutonomous(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const section of ["schedules", "triggers"] as const) {
    const seen = new Map<string, number>();
    config[section].forEach((entry, index) => {
      const at = (...path: (string | number)[]) => [section, index, ...path];
      const first = seen.get(entry.name);
      if (first === undefined) seen.set(entry.name, index);
      else
        problems.push({
          path: at("name"),
          message: `duplicate name ${JSON.stringify(entry.name)} (also ${section}[${first}])`,
        });
      const world = config.worlds.find((candidate) => candidate.name === entry.world);
      if (!world) {
        const known = config.worlds.map((candidate) => candidate.name).join(", ") || "none";
        problems.push({
          path: at("world"),
          message: `unknown world ${JSON.stringify(entry.world)} (worlds: ${known})`,
        });
      } else {
        if (!world.agents.includes(entry.agent)) {
          const isAgent = config.agents.some((agent) => agent.name === entry.agent);
          problems.push({
            path: at("agent"),
            message: isAgent
              ? `agent ${JSON.stringify(entry.agent)} is not in world ${JSON.stringify(world.name)} (its agents: ${world.agents.join(", ")})`
              : `unknown agent ${JSON.stringify(entry.agent)} (world ${JSON.stringify(world.name)} has ${world.agents.join(", ")})`,
          });
        }
        const bound = boundWorld(config, entry.chat.platform, entry.chat.id, world.name);
        if (bound !== world.name) {
          problems.push({
            path: at("chat"),
            message: `${entry.chat.platform} chat ${JSON.stringify(entry.chat.id)} is ${bound === undefined ? "bound to no world" : `bound to world ${JSON.stringify(bound)}`}; bind it to ${JSON.stringify(world.name)} in channels.${entry.chat.platform}.chats`,
          });
        }
      }
      if (section === "schedules" && "cron" in entry) {
        const problem = cronProblem(entry);
        if (problem) problems.push({ path: at(problem.field), message: problem.message });
      }
    });
  }
  return problems;
}

/** The world a chat is bound to, as the world directory binds it (src/world/ingress/world-directory.ts). */
export function boundWorld(config: Config, platform: string, id: string, wanted: string): string | undefined {
  const names = config.worlds.map((world) => world.name);
  // The console and the web console name their world per chat (the run's chat names it).
  if (platform === "console" || platform === "web") return wanted;
  const channel = config.channels[platform as "telegram" | "slack" | "discord"];
  const chats: Record<string, string> = channel?.chats ?? {};
  const name = chats[id] ?? chats["*"];
  if (name !== undefined) return name;
  return Object.keys(chats).length === 0 && names.length === 1 ? names[0] : undefined;
}

/** A schedule or trigger whose tool calls nobody could approve (`check` shows it as a warning). */
export interface AutonomousApprovalWarning {
  /** `schedule <name>` or `trigger <name>`. */
  subject: string;
  text: string;
}

/**
 * Runs of a schedule or trigger have no requester, so `requester` approves nothing for them:
 * a world whose approvers for the run's platform are only `requester` (or not listed, which
 * means the same) leaves each of their cards to expire.
 */
export function autonomousApprovalWarnings(config: Config): AutonomousApprovalWarning[] {
  const warnings: AutonomousApprovalWarning[] = [];
  for (const [kind, entries] of [
    ["schedule", config.schedules],
    ["trigger", config.triggers],
  ] as const) {
    for (const entry of entries) {
      const world = config.worlds.find((candidate) => candidate.name === entry.world);
      if (!world) continue;
      const platform = entry.chat.platform;
      const approvers = world.approvers[platform] ?? [];
      if (approvers.some((approver) => approver !== "requester")) continue;
      const listed = approvers.length === 0 ? "has no approvers for" : "lists only requester as approver on";
      warnings.push({
        subject: `${kind} ${entry.name}`,
        text: `world ${world.name} ${listed} ${platform}; a ${kind}'s run has no requester, so its tool calls can be approved by nobody and expire: list approvers in worlds[].approvers.${platform}`,
      });
    }
  }
  return warnings;
}
