import { isUserRolesChannel } from "../channel/channel-optional.js";
import type { WorldContext } from "../world-context.js";
import type { ChatRef } from "../chat-ref.js";
import type { RolesLookup } from "./access-list.js";
import type { Sender } from "../inbound.js";

/**
 * The roles of a sender: those the channel handed in with the sender, else asked of the
 * channel (once, and only when a list names a role). A failed lookup grants no role. In a chat
 * the owner did not bind by its id (it reaches the world through `*` or the default catch-all)
 * nobody has a role: a stranger who creates a group or a server is its admin and names roles
 * as they please.
 */
export function rolesLookup(
  context: Pick<WorldContext, "channels" | "worlds">,
  chat: ChatRef,
  user: Sender,
): RolesLookup {
  const adapter = context.channels.main(chat.platform);
  const boundById = context.worlds.bindsById(chat);
  let roles: Promise<readonly string[]> | undefined;
  return () => {
    roles ??= (async () => {
      if (!boundById) return [];
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
