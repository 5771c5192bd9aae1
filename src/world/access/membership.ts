import type { WorldSettings } from "../world-settings.js";
import { everyoneEntry, isOnList, type RolesLookup } from "./access-list.js";
import type { AccessChannel } from "./access-channel.js";
import type { Platform } from "../chat-ref.js";
import type { Sender } from "../inbound.js";

/** The member list of a platform: as configured, else everyone. */
export function membersFor(world: Pick<WorldSettings, "members">, platform: Platform): readonly string[] {
  return world.members[platform] ?? [everyoneEntry];
}

/**
 * Who may start turns: the world's members for the platform (ids, `role:<name>`, `admins`,
 * `*`; default `*`). On a channel that does not tell people apart (the console) its local user always may.
 */
export function mayTalk(
  world: Pick<WorldSettings, "members">,
  channel: AccessChannel,
  user: Sender,
  roles: RolesLookup,
): Promise<boolean> {
  if (!channel.capabilities.identifiesClickers) return Promise.resolve(true);
  return isOnList(membersFor(world, channel.platform), { user, roles });
}

/** What a non-member is told (privately where the platform can). */
export const notMemberText = "You are not a member of this chat's world, so the agents do not answer your messages.";
