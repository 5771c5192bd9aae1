import { DiscordAdapter } from "../../channels/discord/adapter.js";
import type { DiscordAdapterOptions, DiscordAgentIdentity } from "../../channels/discord/options.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import { chatKey } from "../../src/world/chat-ref.js";
import type { FakeDiscordUser, FakeInteraction, StoredDiscordMessage } from "../fakes/discord-api.js";
import { createHarness, type Harness, type HarnessOptions } from "../world/harness.js";
import { capturingLogger, type DiscordWorld, discordWorld, InstantClock, mainToken, waitFor } from "./helpers.js";

export interface WorldDiscordOptions extends Omit<HarnessOptions, "channels" | "channelsConfig" | "platform"> {
  /** Extra bots on the fake (agents' own bots). */
  extraBots?: { token: string; username: string }[];
  /** How agents appear (display names, avatars, own tokens). */
  identities?: DiscordAgentIdentity[];
  adapter?: Partial<DiscordAdapterOptions>;
  /** A fake Discord to reuse (a restart): it is left running on close. */
  discord?: DiscordWorld;
  /** `channels.discord.chats` (default `{ "*": "main" }`), given the fake's channels. */
  chats?: (discord: DiscordWorld) => Record<string, string>;
  /** Prepare the fake before the adapter connects (e.g. a stranger's own server). */
  beforeStart?: (discord: DiscordWorld) => void;
}

/**
 * The real world engine (SQLite, queue, tool loop, scripted models) with the real Discord
 * adapter on the fake Discord: a person's message goes in through the gateway, the world's
 * answers come out as REST calls the fake records and shows as messages.
 */
export interface WorldDiscord extends DiscordWorld {
  adapter: DiscordAdapter;
  world: Harness;
  lines: Record<string, unknown>[];
  /** A person writes in a channel; resolves when the world has taken it and gone idle. */
  say(
    from: FakeDiscordUser,
    content: string,
    options?: { channelId?: string; replyTo?: string },
  ): Promise<StoredDiscordMessage>;
  /** Wait until the adapter has handed `message` in (or ignored it), then until the world is idle. */
  settle(message: StoredDiscordMessage): Promise<void>;
  /** A person presses a button; resolves once the press is answered and the world is idle. */
  press(
    from: FakeDiscordUser,
    message: StoredDiscordMessage,
    customId: string,
    permissions?: string,
  ): Promise<FakeInteraction>;
  /** What bots and webhooks posted in a channel, in order. */
  posts(channelId?: string): StoredDiscordMessage[];
  chatOf(channelId?: string): ChatRef;
  chatKeyOf(channelId?: string): string;
  close(): Promise<void>;
}

export async function worldOnDiscord(options: WorldDiscordOptions): Promise<WorldDiscord> {
  const discord = options.discord ?? (await discordWorld(options.extraBots ?? []));
  const ownsFake = options.discord === undefined;
  options.beforeStart?.(discord);
  const { logger, lines } = capturingLogger();
  const adapter = new DiscordAdapter({
    token: mainToken,
    apiUrl: discord.fake.apiUrl,
    logger,
    agents: options.identities ?? options.agents.map((agent) => ({ name: agent.name })),
    clock: new InstantClock(),
    ...options.adapter,
  });
  const {
    extraBots: _bots,
    identities: _identities,
    adapter: _adapter,
    discord: _discord,
    chats: _chats,
    beforeStart: _beforeStart,
    ...harnessOptions
  } = options;
  let world: Harness;
  try {
    world = await createHarness({
      ...harnessOptions,
      channels: [adapter],
      channelsConfig: { discord: { chats: options.chats?.(discord) ?? { "*": "main" } } },
    });
  } catch (error) {
    if (ownsFake) await discord.fake.close();
    throw error;
  }
  const handled = (message: StoredDiscordMessage): boolean =>
    lines.some(
      (line) =>
        line.messageId === message.id &&
        typeof line.msg === "string" &&
        /discord message (handed in|ignored|not handled)|own discord post|malformed discord/.test(line.msg),
    );
  const chatOf = (channelId = discord.general.id): ChatRef => {
    const channel = discord.fake.state.channels.get(channelId);
    if (channel?.type === 11 && channel.parent_id)
      return { platform: "discord", workspace: discord.guildId, channel: channel.parent_id, thread: channelId };
    return channel?.guild_id
      ? { platform: "discord", workspace: discord.guildId, channel: channelId }
      : { platform: "discord", channel: channelId };
  };
  const settle = async (message: StoredDiscordMessage): Promise<void> => {
    await world.waitFor(() => handled(message));
    await world.idle();
  };
  return {
    ...discord,
    adapter,
    world,
    lines,
    chatOf,
    chatKeyOf: (channelId) => chatKey(chatOf(channelId)),
    settle,
    async say(from, content, sayOptions = {}) {
      const message = discord.fake.userMessage({
        channelId: sayOptions.channelId ?? discord.general.id,
        author: from,
        content,
        ...(sayOptions.replyTo === undefined ? {} : { replyTo: sayOptions.replyTo }),
      });
      await settle(message);
      return message;
    },
    async press(from, message, customId, permissions) {
      const interaction = discord.fake.click({
        message,
        user: from,
        customId,
        ...(permissions === undefined ? {} : { permissions }),
      });
      // Answered: a reply, or a deferred update and the private follow-up after it.
      await waitFor(
        () =>
          interaction.callbacks.length > 0 &&
          (interaction.callbacks[0]?.type !== 6 || interaction.ephemeral.length + interaction.followups.length > 0),
        5_000,
      );
      await world.idle();
      return interaction;
    },
    posts: (channelId = discord.general.id) =>
      discord.fake.messagesIn(channelId).filter((message) => message.author.bot === true),
    async close() {
      try {
        await world.close();
      } finally {
        if (ownsFake) await discord.fake.close();
      }
    },
  };
}
