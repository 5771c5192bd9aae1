import { DiscordAdapter } from "../../channels/discord/adapter.js";
import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { ChannelAdapter } from "../world/channel-adapter.js";

/**
 * The platform adapters the config enables (a channel is on when its token is set). Slack is
 * declared in the config contract but its adapter comes in a later release: configuring it is
 * logged, not fatal.
 */
export function createChannels(config: Config, logger: Logger): ChannelAdapter[] {
  const channels: ChannelAdapter[] = [];
  const telegram = config.channels.telegram;
  if (telegram?.token) {
    channels.push(
      new TelegramAdapter({
        token: telegram.token,
        ...(telegram.apiRoot === undefined ? {} : { apiRoot: telegram.apiRoot }),
        ...(telegram.webhookUrl === undefined ? {} : { webhookUrl: telegram.webhookUrl }),
        ...(telegram.webhookSecret === undefined ? {} : { webhookSecret: telegram.webhookSecret }),
        agentBots: config.agents.flatMap((agent) =>
          agent.telegram ? [{ agent: agent.name, token: agent.telegram.token }] : [],
        ),
        agentNames: config.agents.map((agent) => agent.name),
        logger,
      }),
    );
  }
  const discord = config.channels.discord;
  if (discord?.token) {
    channels.push(
      new DiscordAdapter({
        token: discord.token,
        ...(discord.apiUrl === undefined ? {} : { apiUrl: discord.apiUrl }),
        agents: config.agents.map((agent) => ({
          name: agent.name,
          ...(agent.discord ? { token: agent.discord.token } : {}),
        })),
        logger,
      }),
    );
  }
  for (const platform of ["slack"] as const) {
    const settings = config.channels[platform];
    const token = config.channels.slack?.botToken;
    if (settings && token) {
      logger.warn(
        { platform },
        `${platform} is configured, but this version has no ${platform} adapter yet; it is not connected`,
      );
    }
  }
  return channels;
}
