import type { WorldSettings } from "../world-settings.js";
import { isOnList, requesterEntry, type RolesLookup } from "../access-list.js";
import type { AccessChannel } from "../access-channel.js";
import type { Platform } from "../chat-ref.js";
import type { Sender } from "../inbound.js";

/** The approver list of a platform: as configured, else only the requester. */
export function approversFor(world: Pick<WorldSettings, "approvers">, platform: Platform): readonly string[] {
  return world.approvers[platform] ?? [requesterEntry];
}

/**
 * Who may decide an approval: the world's approvers for the platform (user ids, `role:<name>`,
 * `admins`, `requester`, `*`; no list means `[requester]`, a list without `requester` means only
 * those listed). On a channel that does not tell people apart (the console) its local user always may.
 */
export function mayDecide(
  world: Pick<WorldSettings, "approvers">,
  channel: AccessChannel,
  user: Sender,
  requestedFor: string,
  roles: RolesLookup,
): Promise<boolean> {
  if (!channel.capabilities.identifiesClickers) return Promise.resolve(true);
  return isOnList(approversFor(world, channel.platform), { user, requesterId: requestedFor, roles });
}
