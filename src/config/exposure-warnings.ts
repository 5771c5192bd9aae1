import type { Config } from "./schema.js";

/** Platforms where people other than the operator can reach the bot. */
const reachablePlatforms = ["telegram", "slack", "discord"] as const;
type ReachablePlatform = (typeof reachablePlatforms)[number];

/** A world where anyone who can reach the bot on a platform may both talk to it and approve tools. */
export interface ExposureWarning {
  world: string;
  platform: ReachablePlatform;
  /** The world's agents' tool entries that need approval (may be empty for a roles warning). */
  tools: string[];
  text: string;
}

/**
 * Every world that lists `admins` or `role:` on a platform whose catch-all (`"*"`, or the
 * default one) reaches it: there they match nobody (docs/architecture.md, "Access, limits and
 * audit"). And every world whose agents have tools that need approval while, on a platform others can reach
 * (its channel is on and binds chats to the world), everyone may talk (`members` lets everyone
 * in) and may approve (`approvers` has `*` or `requester`, which is the default): a stranger who
 * messages the bot could then approve their own tool calls.
 */
export function exposureWarnings(config: Config): ExposureWarning[] {
  const warnings: ExposureWarning[] = [];
  for (const world of config.worlds) {
    const tools = [
      ...new Set(
        config.agents
          .filter((agent) => world.agents.includes(agent.name))
          .flatMap((agent) => agent.tools)
          .filter((tool) => needsApproval(config, tool)),
      ),
    ];
    for (const platform of reachablePlatforms) {
      if (!channelOn(config, platform) || !boundOn(config, platform, world.name)) continue;
      const members = world.members[platform] ?? ["*"];
      const approvers = world.approvers[platform] ?? ["requester"];
      const catchAll = catchAllReaches(config, platform, world.name);
      if (catchAll) {
        // Roles and admins count only in chats bound by id: here they would silently match nobody.
        for (const [key, list] of [
          ["approvers", approvers],
          ["members", members],
        ] as const) {
          const roles = list.filter(namesRole);
          if (roles.length === 0) continue;
          warnings.push({
            world: world.name,
            platform,
            tools,
            text: `world ${world.name}: worlds[].${key}.${platform} lists ${roles.join(", ")}, which match nobody in ${platform} chats reached through "*" (anyone who creates a group or server is its admin and names its roles); bind the owner's chats by id in channels.${platform}.chats`,
          });
        }
      }
      if (tools.length === 0) continue;
      if (members.includes("*") && (approvers.includes("*") || approvers.includes("requester"))) {
        warnings.push({
          world: world.name,
          platform,
          tools,
          text: `world ${world.name}: anyone who can reach the bot on ${platform} may talk to its agents and approve their own calls of ${tools.join(", ")}; list worlds[].approvers.${platform} (without requester) or worlds[].members.${platform}`,
        });
      } else if (catchAll && approvers.includes("*")) {
        warnings.push({
          world: world.name,
          platform,
          tools,
          text: `world ${world.name}: worlds[].approvers.${platform} has "*": anyone in a ${platform} chat reached through "*" may approve the agents' calls of ${tools.join(", ")}; list approvers by id`,
        });
      }
    }
  }
  return warnings;
}

function namesRole(entry: string): boolean {
  return entry === "admins" || entry.startsWith("role:");
}

/** Whether chats nobody bound by id reach the world on the platform (`"*"`, or no bindings: then the first world). */
function catchAllReaches(config: Config, platform: ReachablePlatform, world: string): boolean {
  const chats = config.channels[platform]?.chats ?? {};
  if (Object.keys(chats).length === 0) return config.worlds[0]?.name === world;
  return chats["*"] === world;
}

function needsApproval(config: Config, tool: string): boolean {
  if (tool === "shell_cmd" && !config.tools.shell.enabled) return false;
  const server = tool.includes("__") ? tool.slice(0, tool.indexOf("__")) : undefined;
  const setting =
    config.tools.approval[tool] ?? (server === undefined ? undefined : config.tools.approval[`${server}__*`]);
  return setting !== "never";
}

function channelOn(config: Config, platform: ReachablePlatform): boolean {
  const { telegram, slack, discord } = config.channels;
  switch (platform) {
    case "telegram":
      return telegram?.token !== undefined;
    case "slack":
      return slack?.botToken !== undefined;
    case "discord":
      return discord?.token !== undefined;
  }
}

/** Whether the platform's chats lead to the world (a chat or `*` bound to it, or none bound and one world). */
function boundOn(config: Config, platform: ReachablePlatform, world: string): boolean {
  const chats = config.channels[platform]?.chats ?? {};
  if (Object.keys(chats).length === 0) return config.worlds.length === 1 || config.worlds[0]?.name === world;
  return Object.values(chats).includes(world);
}

/**
 * When `METRICS_TOKEN` is unset and `HOST` (default `0.0.0.0`) is not a loopback address,
 * `/metrics` answers anyone who reaches the port: counts of messages, turns, tool calls and
 * approvals per world, agent and platform. Undefined when it is protected or local only.
 */
export function metricsExposureWarning(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.METRICS_TOKEN?.trim()) return undefined;
  const host = env.HOST?.trim() || "0.0.0.0";
  if (isLoopback(host)) return undefined;
  return `/metrics is public: HOST is ${host} and METRICS_TOKEN is not set, so anyone who reaches the port reads the service's counters; set METRICS_TOKEN (or HOST=127.0.0.1)`;
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
