import type { Platform } from "./chat-ref.js";
import type { Sender } from "./inbound.js";
import type { WorldSettings } from "./world-settings.js";

/**
 * Who may decide an approval: the world's approvers for the platform (user ids, `role:<name>`
 * for platform roles, `admins` for chat administrators), and the person whose message started
 * the turn. On the console the local user always may.
 */
export function mayDecide(
  world: Pick<WorldSettings, "approvers">,
  platform: Platform,
  user: Sender,
  requestedFor: string,
): boolean {
  if (platform === "console") return true;
  if (user.id === requestedFor) return true;
  const approvers = world.approvers[platform] ?? [];
  const roles = new Set((user.roles ?? []).map((role) => role.toLowerCase()));
  return approvers.some((entry) => {
    if (entry === user.id) return true;
    if (entry === "admins" || entry === "role:admin") return roles.has("admin");
    if (entry.startsWith("role:")) return roles.has(entry.slice("role:".length).toLowerCase());
    return false;
  });
}
