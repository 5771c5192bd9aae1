import { PlatformApiError } from "../../errors/roundtable-error.js";
import { hasMessageContentIntent, messageContentAdvice } from "../../../channels/discord/message-content-intent.js";
import { SecretSeal } from "../../../channels/kit/secret-seal.js";
import { addScopeHint, describeMissingScopes, manifestScopes, missingScopes } from "../../../channels/slack/scopes.js";
import type { Config } from "../../config/schema.js";
import type { CheckOutcome } from "./check-row.js";

/** A platform token to check, with what to call it in the table. */
export interface PlatformCheck {
  name: string;
  run: () => Promise<CheckOutcome>;
}

const timeoutMs = 15_000;

/** One check per configured platform token (channels, and agents' own Telegram bots). */
export function platformChecks(config: Config): PlatformCheck[] {
  const checks: PlatformCheck[] = [];
  const { telegram, slack, discord } = config.channels;
  if (telegram?.token) {
    const { token, apiRoot } = telegram;
    checks.push({ name: "telegram", run: () => checkTelegram(token, apiRoot) });
  }
  for (const agent of config.agents) {
    if (agent.telegram) {
      const { token } = agent.telegram;
      checks.push({ name: `telegram (agent ${agent.name})`, run: () => checkTelegram(token, telegram?.apiRoot) });
    }
  }
  if (slack?.botToken) {
    const { botToken, apiUrl, appToken, manifest, agentView } = slack;
    const mode = appToken ? "Socket Mode" : "HTTP events at /slack/events";
    checks.push({
      name: "slack",
      run: async () => {
        const bot = await checkSlack(botToken, apiUrl);
        if (appToken) await checkSlackAppToken(appToken, apiUrl);
        if (manifest) await checkSlackManifest(manifest, agentView);
        return `${bot}; ${mode}${manifest ? `; manifest ${manifest} holds what the config uses` : ""}`;
      },
    });
  } else if (slack?.oauth) {
    const { oauth, apiUrl, appToken, manifest, agentView } = slack;
    const mode = appToken ? "Socket Mode" : "HTTP events at /slack/events";
    checks.push({
      name: "slack",
      run: async () => {
        const app = await checkSlackOAuth(oauth, apiUrl);
        if (appToken) await checkSlackAppToken(appToken, apiUrl);
        if (manifest) await checkSlackManifest(manifest, agentView, true);
        return `${app}; ${mode}${manifest ? `; manifest ${manifest} holds what the config uses` : ""}`;
      },
    });
  }
  if (discord?.token) {
    const { token, apiUrl } = discord;
    checks.push({ name: "discord", run: () => checkDiscord(token, apiUrl) });
    for (const agent of config.agents) {
      if (agent.discord) {
        const agentToken = agent.discord.token;
        checks.push({ name: `discord (agent ${agent.name})`, run: () => checkDiscordBot(agentToken, apiUrl) });
      }
    }
  }
  return checks;
}

/** Telegram `getMe` (telegram-identity.ts says why grammY is not imported here). */
async function checkTelegram(token: string, apiRoot: string | undefined): Promise<string> {
  const { telegramIdentity } = await import("./telegram-identity.js");
  return telegramIdentity(token, apiRoot, timeoutMs);
}

/** Slack `auth.test` through the Web API client bundled with Bolt (honours `slackApiUrl`). */
async function checkSlack(botToken: string, apiUrl: string | undefined): Promise<string> {
  const { webApi } = await import("@slack/bolt");
  const quiet = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    setLevel: () => undefined,
    getLevel: () => webApi.LogLevel.ERROR,
    setName: () => undefined,
  };
  const client = new webApi.WebClient(botToken, {
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logger: quiet,
    ...(apiUrl === undefined ? {} : { slackApiUrl: apiUrl }),
  });
  const result = await client.auth.test();
  const who = `bot ${result.user ?? "?"} in workspace ${result.team ?? "?"}`;
  const scopes = result.response_metadata?.scopes;
  if (!scopes) return `${who}; granted scopes not reported, not checked`;
  const missing = missingScopes(scopes);
  if (missing.some((need) => need.scope === "chat:write")) {
    throw new PlatformApiError(`${who} lacks ${describeMissingScopes(missing)}; ${addScopeHint}`, {
      method: "auth.test",
    });
  }
  return missing.length === 0
    ? `${who}; all scopes granted`
    : `${who}; missing scopes: ${describeMissingScopes(missing)}; ${addScopeHint}`;
}

/**
 * Add to Slack (`channels.slack.oauth`): the secret key seals, and Slack knows the client: a
 * code exchange with a code that cannot be valid answers `invalid_code` for a right client id
 * and secret (`invalid_client_id`, `bad_client_secret` otherwise). Nothing is installed.
 */
async function checkSlackOAuth(
  oauth: { clientId: string; clientSecret: string; scopes?: string[] | undefined; secretKey?: string | undefined },
  apiUrl: string | undefined,
): Promise<string> {
  new SecretSeal(oauth.secretKey);
  const { webApi } = await import("@slack/bolt");
  const client = new webApi.WebClient(undefined, {
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logLevel: webApi.LogLevel.ERROR,
    ...(apiUrl === undefined ? {} : { slackApiUrl: apiUrl }),
  });
  try {
    await client.oauth.v2.access({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code: "roundtable-check",
    });
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code !== "invalid_code") {
      throw new PlatformApiError(
        `Slack refused the app's client id and secret${code ? ` (${code})` : ""}: copy them from Basic Information → App Credentials at api.slack.com/apps`,
        { cause: error, method: "oauth.v2.access" },
      );
    }
  }
  const missing = missingScopes(oauth.scopes ?? manifestScopes);
  const scopes = missing.length === 0 ? "asks for every scope" : `does not ask for ${describeMissingScopes(missing)}`;
  return `Add to Slack: client ${oauth.clientId} known to Slack, installs at /slack/install, ${scopes}; tokens sealed with ROUNDTABLE_SECRET_KEY`;
}

/** `channels.slack.manifest`: the app's manifest holds what the config uses (slack-manifest.ts says why it is apart). */
async function checkSlackManifest(file: string, agentView: boolean, oauth = false): Promise<void> {
  const { checkManifestFile } = await import("./slack-manifest.js");
  await checkManifestFile(file, agentView, oauth);
}

/** The app-level token opens Socket Mode connections (`apps.connections.open`; nothing connects). */
async function checkSlackAppToken(appToken: string, apiUrl: string | undefined): Promise<void> {
  const { webApi } = await import("@slack/bolt");
  const client = new webApi.WebClient(appToken, {
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logLevel: webApi.LogLevel.ERROR,
    ...(apiUrl === undefined ? {} : { slackApiUrl: apiUrl }),
  });
  try {
    await client.apps.connections.open({});
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    throw new PlatformApiError(
      `SLACK_APP_TOKEN refused for Socket Mode${code ? ` (${code})` : ""}: create an app-level token with connections:write under Basic Information → App-Level Tokens`,
      { cause: error, method: "apps.connections.open" },
    );
  }
}

/**
 * Discord `GET /users/@me` and `GET /applications/@me` through discord.js's REST client (honours
 * the `api` base). A bot without the message content intent fails, saying how to enable it.
 */
async function checkDiscord(token: string, apiUrl: string | undefined): Promise<string> {
  const { rest, Routes } = await discordRest(token, apiUrl);
  const me = (await rest.get(Routes.user())) as { username?: string; id?: string };
  const application = (await rest.get(Routes.currentApplication())) as { flags?: number };
  if (!hasMessageContentIntent(application.flags ?? 0)) {
    throw new PlatformApiError(messageContentAdvice, { method: "GET /applications/@me" });
  }
  return `bot ${me.username ?? "?"} (${me.id ?? "?"}); message content intent granted`;
}

/** An agent's own Discord bot: only posts, so its token is all that matters. */
async function checkDiscordBot(token: string, apiUrl: string | undefined): Promise<string> {
  const { rest, Routes } = await discordRest(token, apiUrl);
  const me = (await rest.get(Routes.user())) as { username?: string; id?: string };
  return `bot ${me.username ?? "?"} (${me.id ?? "?"})`;
}

async function discordRest(token: string, apiUrl: string | undefined) {
  const { REST, Routes } = await import("discord.js");
  const rest = new REST({
    version: "10",
    retries: 0,
    timeout: timeoutMs,
    hashSweepInterval: 0,
    handlerSweepInterval: 0,
    ...(apiUrl === undefined ? {} : { api: apiUrl }),
  }).setToken(token);
  return { rest, Routes };
}
