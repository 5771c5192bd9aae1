import { boundWorld } from "./check-autonomous.js";
import type { Config, WorldConfig } from "./schema.js";

/** A route or approvals chat that cannot work as configured (`check` shows it as a warning). */
export interface ApprovalRouteWarning {
  world: string;
  text: string;
}

type ChatPlatform = "telegram" | "slack" | "discord";
const chatPlatforms: readonly ChatPlatform[] = ["telegram", "slack", "discord"];

/**
 * `approvals.route` and `approvals.channel` (docs/approvals.md, "Where approval cards go"): a
 * DM goes only to an approver listed by id on a configured platform, and the approvals chat
 * must be on a configured platform, bound to the world, with someone there who may decide.
 */
export function approvalRouteWarnings(config: Config): ApprovalRouteWarning[] {
  const warnings: ApprovalRouteWarning[] = [];
  for (const world of config.worlds) {
    const warn = (text: string) => warnings.push({ world: world.name, text });
    const { route, channel } = world.approvals;
    if (route !== "chat") {
      const reachable = chatPlatforms.filter(
        (platform) => config.channels[platform] && listedById(world, platform) > 0,
      );
      if (reachable.length === 0)
        warn(
          `approvals.route is ${route}, but no approver is listed by id on a configured platform: every card falls back to the chat; list ids in worlds[].approvers.<platform>`,
        );
      for (const platform of chatPlatforms) {
        if (!config.channels[platform] && listedById(world, platform) > 0)
          warn(
            `approvals.route is ${route}: approvers.${platform} lists people, but channels.${platform} is not configured, so no DM reaches them`,
          );
      }
      if (reachable.includes("telegram"))
        warn(
          "approvals.route on Telegram: a bot may write only to people who started it; an approver who did not is skipped (each should open the bot and press Start)",
        );
    }
    if (channel) {
      const where = `approvals.channel ${channel.platform} ${JSON.stringify(channel.id)}`;
      if (!config.channels[channel.platform]) {
        warn(`${where}: channels.${channel.platform} is not configured, so no card is posted there`);
      } else {
        const bound = boundWorld(config, channel.platform, channel.id, world.name);
        if (bound !== world.name)
          warn(
            `${where} is ${bound === undefined ? "bound to no world" : `bound to world ${JSON.stringify(bound)}`}; bind it to ${JSON.stringify(world.name)} in channels.${channel.platform}.chats`,
          );
        const approvers = world.approvers[channel.platform] ?? [];
        if (approvers.every((entry) => entry === "requester"))
          warn(
            `${where}: worlds[].approvers.${channel.platform} names nobody but requester, so only calls asked on ${channel.platform} can be decided there`,
          );
      }
    }
  }
  return warnings;
}

/** How many approvers of the platform are named by id (not `requester`, `*`, `admins` or a role). */
function listedById(world: WorldConfig, platform: ChatPlatform): number {
  const entries = world.approvers[platform] ?? [];
  return entries.filter((entry) => !["requester", "*", "admins"].includes(entry) && !entry.startsWith("role:")).length;
}
