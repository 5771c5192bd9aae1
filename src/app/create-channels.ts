import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { ChannelAdapter } from "../world/channel-adapter.js";

/**
 * The platform adapters the config enables (a channel is on when its token is set). Slack and
 * Discord are declared in the config contract but their adapters come in a later release:
 * configuring them is logged, not fatal.
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
  for (const platform of ["slack", "discord"] as const) {
    const settings = config.channels[platform];
    const token = platform === "slack" ? config.channels.slack?.botToken : config.channels.discord?.token;
    if (settings && token) {
      logger.warn(
        { platform },
        `${platform} is configured, but this version has no ${platform} adapter yet; it is not connected`,
      );
    }
  }
  return channels;
}
