import type { ChatRef, Platform } from "../chat-ref.js";
import type { WorldDirectory } from "../world-context.js";
import type { ChatBindings, WorldSettings } from "../world-settings.js";

/**
 * Binds chats to worlds by their platform's bindings (`*` matches any chat). Chats of the
 * platforms in `worldNamingPlatforms` (channels with the `chatsNameTheirWorld` capability: the
 * console and the web console) name their world in `workspace` instead.
 */
export function createWorldDirectory(
  worlds: readonly WorldSettings[],
  bindings: ChatBindings,
  worldNamingPlatforms: ReadonlySet<Platform>,
): WorldDirectory {
  const byName = new Map(worlds.map((world) => [world.name, world]));
  return {
    get: (name) => byName.get(name),
    worldFor(chat: ChatRef) {
      if (worldNamingPlatforms.has(chat.platform)) {
        return chat.workspace === undefined ? worlds[0] : byName.get(chat.workspace);
      }
      const chats = bindings[chat.platform] ?? {};
      // A chat may be bound in its workspace (`T0123/C0TEAM`, Slack with several installed) or by its channel alone.
      const inWorkspace = chat.workspace === undefined ? undefined : chats[`${chat.workspace}/${chat.channel}`];
      const name = inWorkspace ?? chats[chat.channel] ?? chats["*"];
      if (name !== undefined) return byName.get(name);
      // A single world with no explicit bindings takes every chat: what a first-time user expects.
      return Object.keys(chats).length === 0 && worlds.length === 1 ? worlds[0] : undefined;
    },
    bindsById(chat: ChatRef) {
      if (worldNamingPlatforms.has(chat.platform)) return true;
      const chats = bindings[chat.platform] ?? {};
      if (chat.workspace !== undefined && Object.hasOwn(chats, `${chat.workspace}/${chat.channel}`)) return true;
      return chat.channel !== "*" && Object.hasOwn(chats, chat.channel);
    },
  };
}
