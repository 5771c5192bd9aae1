import type { WorldSettings } from "../world-settings.js";
import { isAutonomousStarter } from "../autonomous/autonomous-run-store.js";
import { isOnList, requesterEntry, type RolesLookup } from "../access/access-list.js";
import { type AccessChannel, accessChannelFor } from "../access/access-channel.js";
import type { ChatRef, Platform } from "../chat-ref.js";
import type { Sender } from "../inbound.js";
import { rolesLookup } from "../access/user-roles.js";
import type { WorldContext } from "../world-context.js";

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
  requestedFor: string | undefined,
  roles: RolesLookup,
): Promise<boolean> {
  if (!channel.capabilities.identifiesClickers) return Promise.resolve(true);
  // A schedule's or trigger's run has no requester: `requester` matches nobody for it (nor
  // for an approval nobody may decide as its requester: undefined).
  const requester =
    requestedFor === undefined || isAutonomousStarter(requestedFor) ? {} : { requesterId: requestedFor };
  return isOnList(approversFor(world, channel.platform), { user, ...requester, roles });
}

/**
 * Whether the sender may decide for the person whose message started a turn (their platform
 * id; undefined: as nobody's requester, only as one of the listed approvers).
 */
export type DeciderCheck = (requestedFor: string | undefined) => Promise<boolean>;

/**
 * The one look-up of a sender's right to decide in a chat, for every action that closes or
 * decides someone's approvals: a press, `/stop`, `/reset`, a new message superseding a parked
 * turn. The sender's roles are asked of the channel at most once, however many approvals or
 * turns are checked ({@link rolesLookup}).
 */
export function deciderCheck(
  context: Pick<WorldContext, "channels" | "worlds">,
  world: Pick<WorldSettings, "approvers">,
  chat: ChatRef,
  sender: Sender,
): DeciderCheck {
  const roles = rolesLookup(context, chat, sender);
  const channel = accessChannelFor(context.channels, chat.platform);
  return (requestedFor) => mayDecide(world, channel, sender, requestedFor, roles);
}
