import type { SlackAdapter } from "../../channels/slack/adapter.js";
import type { Config } from "../config/schema.js";
import { ConfigError } from "../errors/roundtable-error.js";
import { nodeHttpFetch } from "../http/node-http-fetch.js";
import type { Logger } from "../log/logger.js";
import type { ChannelAdapter } from "../world/channel-adapter.js";
import type { ChatRef } from "../world/chat-ref.js";
import type { ChannelInstallationStore } from "../world/stores/installation-store.js";
import type { SingletonLock } from "../world/queue/singleton-lock.js";
import { linkPreviewsFrom } from "./world-settings-from-config.js";

/**
 * The platform adapters the config enables (a channel is on when its token is set). Each
 * adapter and its platform SDK is loaded here, only when its channel is on: discord.js,
 * @slack/bolt and grammy are most of what a start would otherwise read and compile.
 */
export async function createChannels(
  config: Config,
  logger: Logger,
  options: {
    /** Once-per-bot connections (Telegram long polling, Discord's gateway) run where this lock is held (several processes). */
    singletonLock?: SingletonLock;
    /** Where "Add to Slack" keeps its installations (`channels.slack.oauth`). */
    installations?: ChannelInstallationStore;
  } = {},
): Promise<ChannelAdapter[]> {
  const channels: ChannelAdapter[] = [];
  const linkPreviews = linkPreviewsFrom(config);
  const telegram = config.channels.telegram;
  if (telegram?.token) {
    const { TelegramAdapter } = await import("../../channels/telegram/adapter.js");
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
        ...(options.singletonLock === undefined ? {} : { pollingLock: options.singletonLock }),
        linkPreviews,
        logger,
      }),
    );
  }
  const slack = config.channels.slack;
  if (slack?.botToken || slack?.oauth) {
    channels.push(await createSlackAdapter(config, logger, linkPreviews, options.installations));
  }
  const discord = config.channels.discord;
  if (discord?.token) {
    const { DiscordAdapter } = await import("../../channels/discord/adapter.js");
    channels.push(
      new DiscordAdapter({
        token: discord.token,
        ...(discord.apiUrl === undefined ? {} : { apiUrl: discord.apiUrl }),
        agents: config.agents.map((agent) => ({
          name: agent.name,
          ...(agent.displayName === undefined ? {} : { displayName: agent.displayName }),
          ...(agent.avatarUrl === undefined ? {} : { avatarUrl: agent.avatarUrl }),
          ...(agent.discord ? { token: agent.discord.token } : {}),
        })),
        ...(options.singletonLock === undefined ? {} : { gatewayLock: options.singletonLock }),
        linkPreviews,
        logger,
      }),
    );
  }
  return channels;
}

/** Slack: Socket Mode with an app token, else HTTP events at `/slack/events`; one bot token, or Add to Slack. */
async function createSlackAdapter(
  config: Config,
  logger: Logger,
  linkPreviews: (chat: ChatRef) => boolean,
  installations: ChannelInstallationStore | undefined,
): Promise<SlackAdapter> {
  const { SlackAdapter } = await import("../../channels/slack/adapter.js");
  const slack = config.channels.slack;
  const approverGroups = new Set(
    config.worlds.flatMap((world) =>
      (world.approvers.slack ?? [])
        .filter((entry) => entry.startsWith("role:"))
        .map((entry) => entry.slice("role:".length)),
    ),
  );
  const oauth = slack?.oauth;
  if (oauth && !installations) throw new ConfigError("channels.slack.oauth needs the service's database");
  return new SlackAdapter({
    ...(slack?.botToken ? { botToken: slack.botToken } : {}),
    ...(oauth && installations
      ? {
          oauth: {
            settings: {
              clientId: oauth.clientId,
              clientSecret: oauth.clientSecret,
              stateSecret: oauth.stateSecret,
              ...(oauth.scopes ? { scopes: oauth.scopes } : {}),
            },
            store: installations,
            secretKey: oauth.secretKey,
          },
        }
      : {}),
    ...(slack?.signingSecret ? { signingSecret: slack.signingSecret } : {}),
    ...(slack?.appToken ? { appToken: slack.appToken } : {}),
    ...(slack?.apiUrl ? { apiUrl: slack.apiUrl } : {}),
    fetch: nodeHttpFetch,
    replyIn: slack?.replyIn ?? "thread",
    stream: slack?.stream ?? "edit",
    agentView: slack?.agentView ?? false,
    // Also on the Author the world hands over; kept here for posts whose author lacks it.
    agents: config.agents.map((agent) => ({
      name: agent.name,
      ...(agent.displayName === undefined ? {} : { displayName: agent.displayName }),
      ...(agent.avatarUrl === undefined ? {} : { avatarUrl: agent.avatarUrl }),
      ...(agent.description === undefined ? {} : { description: agent.description }),
    })),
    approverGroups: [...approverGroups],
    linkPreviews,
    logger,
  });
}
