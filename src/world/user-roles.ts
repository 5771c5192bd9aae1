import type { ChannelAdapter } from "./channel-adapter.js";
import type { ChatRef } from "./chat-ref.js";
import type { RolesLookup } from "./access-list.js";
import type { Sender } from "./inbound.js";

/**
 * Capability: the roles a person has in a chat (Discord roles, Slack user groups, `admin` for
 * chat administrators), for `role:<name>` and `admins` in approver and member lists.
 */
export interface UserRolesChannel {
  rolesOf(chat: ChatRef, userId: string): Promise<string[]>;
}

export function isUserRolesChannel(adapter: ChannelAdapter): adapter is ChannelAdapter & UserRolesChannel {
  return typeof (adapter as Partial<UserRolesChannel>).rolesOf === "function";
}

/**
 * The roles of a sender: those the channel handed in with the sender, else asked of the
 * channel (once, and only when a list names a role). A failed lookup grants no role.
 */
export function rolesLookup(adapter: ChannelAdapter | undefined, chat: ChatRef, user: Sender): RolesLookup {
  let roles: Promise<readonly string[]> | undefined;
  return () => {
    roles ??= (async () => {
      if (user.roles !== undefined) return user.roles;
      if (!adapter || !isUserRolesChannel(adapter)) return [];
      try {
        return await adapter.rolesOf(chat, user.id);
      } catch {
        return [];
      }
    })();
    return roles;
  };
}
