import type { Client } from "discord.js";
import type { ChatRef } from "../../src/world/channel-adapter.js";
import type { DiscordApi } from "./api.js";

/** Channel types that are threads (announcement, public and private threads). */
const threadTypes = new Set([10, 11, 12]);

interface Location {
  guildId?: string;
  /** Set for threads: the channel the thread belongs to (its binding, its webhook). */
  parentId?: string;
}

/**
 * Which chat a Discord channel id is: a guild text channel `{ workspace: guild, channel }`, a
 * thread `{ workspace: guild, channel: parent, thread }` (its own chat, bound like its parent)
 * or a DM `{ channel }`. Read from discord.js's cache (filled by the gateway), else fetched once.
 */
export class ChatLocator {
  private readonly known = new Map<string, Location>();

  constructor(
    private readonly client: Client,
    private readonly api: DiscordApi,
  ) {}

  async chatOf(channelId: string, guildId: string | undefined): Promise<ChatRef> {
    if (guildId === undefined) return { platform: "discord", channel: channelId };
    const location = await this.locate(channelId, guildId);
    return {
      platform: "discord",
      workspace: location.guildId ?? guildId,
      channel: location.parentId ?? channelId,
      ...(location.parentId === undefined ? {} : { thread: channelId }),
    };
  }

  private async locate(channelId: string, guildId: string): Promise<Location> {
    const remembered = this.known.get(channelId);
    if (remembered) return remembered;
    const cached = this.client.channels.cache.get(channelId);
    let location: Location;
    // A partial channel is one discord.js made up from a message alone: its kind is a guess.
    if (cached && !cached.partial) {
      location = { guildId, ...(cached.isThread() && cached.parentId ? { parentId: cached.parentId } : {}) };
    } else {
      const channel = await this.api.fetchChannel(channelId);
      location = {
        guildId: channel.guild_id ?? guildId,
        ...(threadTypes.has(channel.type) && channel.parent_id ? { parentId: channel.parent_id } : {}),
      };
    }
    this.known.set(channelId, location);
    return location;
  }
}

/** The channel id to post into for a chat: the thread when there is one. */
export function targetChannelOf(chat: ChatRef): string {
  return chat.thread ?? chat.channel;
}
