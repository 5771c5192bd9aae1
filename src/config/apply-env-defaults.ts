import { firstSetVariable, isBuiltInProviderName, providerEnvironments } from "./provider-environment.js";
import {
  type ChannelsConfig,
  type Config,
  discordChannelSchema,
  providerConfigSchema,
  slackChannelSchema,
  telegramChannelSchema,
} from "./schema.js";

type Env = Record<string, string | undefined>;

/**
 * Fills what the file left out from the environment, file values first:
 * - providers named `openai`, `anthropic`, `google` (declared, or only named by an agent) take
 *   their key and base URL from `OPENAI_API_KEY`, … and get their `type`;
 * - channels take tokens and URLs from `TELEGRAM_BOT_TOKEN`, `SLACK_BOT_TOKEN`, … .
 *
 * Returns a new config; the input is not changed.
 */
export function applyEnvDefaults(config: Config, env: Env): Config {
  const providers = { ...config.providers };
  for (const agent of config.agents) {
    if (providers[agent.provider] === undefined && isBuiltInProviderName(agent.provider)) {
      providers[agent.provider] = providerConfigSchema.parse({});
    }
  }
  for (const [name, provider] of Object.entries(providers)) {
    if (!isBuiltInProviderName(name)) continue;
    const environment = providerEnvironments[name];
    const filled = { ...provider, type: provider.type ?? name };
    const apiKey = provider.apiKey ?? firstSetVariable(env, environment.apiKeyVariables);
    const baseUrl = provider.baseUrl ?? firstSetVariable(env, environment.baseUrlVariables);
    if (apiKey !== undefined) filled.apiKey = apiKey;
    if (baseUrl !== undefined) filled.baseUrl = baseUrl;
    providers[name] = filled;
  }
  const webToken = config.web.token ?? firstSetVariable(env, ["WEB_CONSOLE_TOKEN"]);
  const web = webToken === undefined ? config.web : { ...config.web, token: webToken };
  return { ...config, providers, channels: channelsWithEnv(config.channels, env), web };
}

/** Adds environment values to channels; a channel with a token (from file or environment) is present. */
function channelsWithEnv(channels: ChannelsConfig, env: Env): ChannelsConfig {
  const result: ChannelsConfig = {};
  const telegram = withDefaults(channels.telegram ?? telegramChannelSchema.parse({}), env, {
    token: "TELEGRAM_BOT_TOKEN",
    apiRoot: "TELEGRAM_API_ROOT",
    webhookUrl: "TELEGRAM_WEBHOOK_URL",
  });
  if (channels.telegram || telegram.token) result.telegram = telegram;
  // With oauth each workspace has its own token: SLACK_BOT_TOKEN is not taken.
  const slack = withDefaults(channels.slack ?? slackChannelSchema.parse({}), env, {
    ...(channels.slack?.oauth ? {} : { botToken: "SLACK_BOT_TOKEN" }),
    appToken: "SLACK_APP_TOKEN",
    signingSecret: "SLACK_SIGNING_SECRET",
    apiUrl: "SLACK_API_URL",
  });
  if (slack.oauth && slack.oauth.secretKey === undefined) {
    const secretKey = firstSetVariable(env, ["ROUNDTABLE_SECRET_KEY"]);
    if (secretKey !== undefined) slack.oauth = { ...slack.oauth, secretKey };
  }
  if (channels.slack || slack.botToken) result.slack = slack;
  const discord = withDefaults(channels.discord ?? discordChannelSchema.parse({}), env, {
    token: "DISCORD_BOT_TOKEN",
    apiUrl: "DISCORD_API_URL",
  });
  if (channels.discord || discord.token) result.discord = discord;
  if (channels.web) result.web = channels.web;
  return result;
}

function withDefaults<T extends object>(channel: T, env: Env, variables: Partial<Record<keyof T & string, string>>): T {
  const filled: Record<string, unknown> = { ...(channel as Record<string, unknown>) };
  for (const [key, variable] of Object.entries(variables)) {
    if (filled[key] !== undefined || variable === undefined) continue;
    const value = firstSetVariable(env, [variable as string]);
    if (value !== undefined) filled[key] = value;
  }
  return filled as T;
}
