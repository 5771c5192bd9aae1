import type { Authorize, webApi } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelInstallationStore, WebhookRoute } from "../../src/world/channel-adapter.js";
import { SecretSeal } from "../kit/secret-seal.js";
import { SlackInstallations } from "./installations.js";
import { type SlackOAuthSettings, slackOAuthRoutes } from "./oauth.js";
import { InstalledWorkspaces } from "./workspaces.js";

/** `SlackAdapterOptions.oauth`: "Add to Slack" for many workspaces (docs/slack.md). */
export interface SlackOAuthOptions {
  settings: SlackOAuthSettings;
  /** Where installations are kept (the service's `Store`). */
  store: ChannelInstallationStore;
  /** `ROUNDTABLE_SECRET_KEY`: seals the installed workspaces' bot tokens. */
  secretKey: string | undefined;
  /** Slack's consent page (another for an emulator). */
  authorizationUrl?: string;
}

/**
 * The app as installed in many workspaces: the install routes, the workspaces' tokens from the
 * store, and Bolt's `authorize`, which answers each event and click with the token of the
 * workspace it came from (a workspace that has not installed the app is not answered).
 */
export function installedWorkspaces(
  oauth: SlackOAuthOptions,
  clientOptions: webApi.WebClientOptions,
  logger: Logger,
): {
  workspaces: InstalledWorkspaces;
  installations: SlackInstallations;
  authorize: Authorize<boolean>;
  routes: WebhookRoute[];
} {
  const installations = new SlackInstallations(oauth.store, new SecretSeal(oauth.secretKey), logger);
  const workspaces = new InstalledWorkspaces(installations, clientOptions);
  const authorize: Authorize<boolean> = async (source) => {
    const app = await workspaces.auth(source.teamId);
    return { botToken: app.botToken, botId: app.botId, botUserId: app.botUserId, teamId: app.teamId };
  };
  const routes = slackOAuthRoutes({
    settings: oauth.settings,
    installations,
    clientOptions,
    logger,
    ...(oauth.authorizationUrl === undefined ? {} : { authorizationUrl: oauth.authorizationUrl }),
  });
  return { workspaces, installations, authorize, routes };
}
