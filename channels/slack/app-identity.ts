import type { webApi } from "@slack/bolt";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import { toPlatformError } from "./api.js";
import { addScopeHint, describeMissingScopes, missingScopes } from "./scopes.js";
import { type WebApiRetryOptions, withWebApiRetries } from "./web-api-retries.js";

/** Who the app is in its workspace, from `auth.test`. */
export interface AppIdentity {
  botUserId: string;
  botId: string;
  teamId: string;
  /** The bot token's scopes (`x-oauth-scopes`), when Slack said. */
  scopes: Set<string> | undefined;
}

/** The app in one workspace: who its bot is there, what it may, and the token that speaks for it. */
export interface WorkspaceAuth extends AppIdentity {
  botToken: string;
}

/**
 * `auth.test`: who the app is and which scopes it has. Each missing scope is logged with the
 * feature it breaks and how to add it; a token that is not a bot token is refused.
 */
export async function identifyApp(
  client: webApi.WebClient,
  logger: Logger,
  retries: WebApiRetryOptions,
): Promise<AppIdentity> {
  const what = "auth.test (check SLACK_BOT_TOKEN)";
  const once = async () => {
    try {
      return await client.auth.test();
    } catch (error) {
      throw toPlatformError(error, what);
    }
  };
  // A read: a 5xx or a cut connection at start is tried again (the client's own retries are off).
  const result: webApi.AuthTestResponse = await withWebApiRetries(what, once, "idempotent", retries);
  const scopes = result.response_metadata?.scopes;
  if (scopes) {
    const missing = missingScopes(scopes);
    for (const need of missing) {
      logger.warn(
        { scope: need.scope },
        `slack app lacks the ${need.scope} scope: ${need.feature} does not work; ${addScopeHint}`,
      );
    }
    if (missing.length > 0) logger.debug({ missing: describeMissingScopes(missing) }, "slack scopes missing");
  }
  if (!result.user_id || !result.bot_id || !result.team_id) {
    throw new PlatformApiError(
      "slack auth.test did not name the bot user, bot and workspace; is SLACK_BOT_TOKEN a bot token (xoxb-)?",
      { method: "auth.test" },
    );
  }
  return {
    botUserId: result.user_id,
    botId: result.bot_id,
    teamId: result.team_id,
    scopes: scopes ? new Set(scopes) : undefined,
  };
}
