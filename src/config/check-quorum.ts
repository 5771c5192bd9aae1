/**
 * `worlds[].approvals.quorum` and `escalate` (docs/approvals.md, "Quorum"): config errors for
 * names no tool has, and the `check` warning for a quorum that the listed people cannot meet.
 */
import { platforms } from "../world/chat-ref.js";
import type { ConfigProblem } from "./format-config-issues.js";
import type { Config } from "./schema.js";
import { checkToolName } from "./tool-names.js";

/** Quorum keys name a tool this config can offer; `escalate.to` names platforms. */
export function checkQuorum(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.worlds.forEach((world, worldIndex) => {
    for (const tool of Object.keys(world.approvals.quorum)) {
      const problem = checkToolName(tool, config.tools);
      if (problem) problems.push({ path: ["worlds", worldIndex, "approvals", "quorum", tool], message: problem });
    }
    for (const platform of Object.keys(world.approvals.escalate?.to ?? {})) {
      if (!(platforms as readonly string[]).includes(platform))
        problems.push({
          path: ["worlds", worldIndex, "approvals", "escalate", "to", platform],
          message: `unknown platform ${JSON.stringify(platform)} (expected one of ${platforms.join(", ")})`,
        });
    }
  });
  return problems;
}

/** A quorum nobody can meet on a platform (`check` shows it as a warning). */
export interface QuorumWarning {
  /** `quorum <world>`. */
  subject: string;
  text: string;
}

/** Entries that stand for more than one person: someone may meet the count through them. */
const openEntries = new Set(["*", "admins"]);

/**
 * For each quorum of N and each platform the world's chats are on: fewer than N people listed
 * by id (approvers and `escalate.to`; `requester` never counts) and no entry that stands for
 * many (`*`, `admins`, `role:`), so every such call would wait and expire.
 */
export function quorumWarnings(config: Config): QuorumWarning[] {
  const warnings: QuorumWarning[] = [];
  for (const world of config.worlds) {
    const entries = Object.entries(world.approvals.quorum);
    if (entries.length === 0) continue;
    for (const platform of worldPlatforms(config, world.name)) {
      const listed = [...(world.approvers[platform] ?? []), ...(world.approvals.escalate?.to[platform] ?? [])];
      if (listed.some((entry) => openEntries.has(entry) || entry.startsWith("role:"))) continue;
      const people = new Set(listed.filter((entry) => entry !== "requester")).size;
      for (const [tool, needed] of entries) {
        if (people >= needed) continue;
        warnings.push({
          subject: `quorum ${world.name}`,
          text: `${tool} needs ${needed} approvers but world ${world.name} lists ${people} on ${platform} (the requester never counts): such calls expire; list more in worlds[].approvers.${platform}`,
        });
      }
    }
  }
  return warnings;
}

/** The platforms the world's chats are on: a channel whose chats bind it (by id or `*`), or the only world. */
function worldPlatforms(config: Config, worldName: string): string[] {
  const found: string[] = [];
  for (const platform of ["telegram", "slack", "discord"] as const) {
    const channel = config.channels[platform];
    if (!channel) continue;
    const chats: Record<string, string> = channel.chats ?? {};
    const bound =
      Object.values(chats).includes(worldName) || (Object.keys(chats).length === 0 && config.worlds.length === 1);
    if (bound) found.push(platform);
  }
  return found;
}
