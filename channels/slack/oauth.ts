import type { IncomingMessage, ServerResponse } from "node:http";
import type { webApi } from "@slack/bolt";
import { type CodedError, InstallProvider } from "@slack/oauth";
import type { Logger } from "../../src/log/logger.js";
import type { WebhookRoute } from "../../src/world/channel-adapter.js";
import { reply } from "../kit/http-text.js";
import { boltLogger } from "./bolt-logger.js";
import type { SlackInstallations } from "./installations.js";
import { manifestScopes } from "./scopes.js";

/** `channels.slack.oauth`: the app's credentials from api.slack.com → Basic Information. */
export interface SlackOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** Signs the `state` of an install (a cookie in the installer's browser must match it). */
  stateSecret: string;
  /** Bot scopes asked for (default: every scope of channels/slack/manifest.yaml). */
  scopes?: string[];
}

/** Where an install starts and where Slack sends the installer back. */
export const installPath = "/slack/install";
export const redirectPath = "/slack/oauth_redirect";

/**
 * "Add to Slack" (docs/slack.md): `/slack/install` sends the installer to Slack's consent page with
 * a signed `state` (and the same value in a cookie); `/slack/oauth_redirect` checks that state,
 * exchanges the code (`oauth.v2.access`) and stores the installation (token sealed). A forged,
 * stale or other browser's state is refused with 400 and a log line, and nothing is stored.
 */
export function slackOAuthRoutes(options: {
  settings: SlackOAuthSettings;
  installations: SlackInstallations;
  clientOptions: webApi.WebClientOptions;
  logger: Logger;
  /** Slack's consent page (another for an emulator). */
  authorizationUrl?: string;
}): WebhookRoute[] {
  const { settings, logger } = options;
  const scopes = settings.scopes ?? [...manifestScopes];
  const installer = new InstallProvider({
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    stateSecret: settings.stateSecret,
    installationStore: options.installations,
    installUrlOptions: { scopes },
    directInstall: true,
    clientOptions: options.clientOptions,
    logger: boltLogger(logger),
    ...(options.authorizationUrl === undefined ? {} : { authorizationUrl: options.authorizationUrl }),
  });
  const getOnly = (handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>) => {
    return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      request.resume();
      if (request.method !== "GET") {
        reply(response, 405, "method not allowed");
        return;
      }
      await handle(request, response);
    };
  };
  return [
    {
      path: installPath,
      handle: getOnly(async (request, response) => {
        try {
          await installer.handleInstallPath(request, response, {}, { scopes });
        } catch (error) {
          logger.error({ err: error }, "slack install could not start");
          if (!response.headersSent) reply(response, 500, "the install could not start");
        }
      }),
    },
    {
      path: redirectPath,
      handle: getOnly((request, response) =>
        installer.handleCallback(request, response, {
          success: (installation, _options, _request, answer) => {
            const team = installation.team?.name ?? installation.team?.id ?? "the workspace";
            reply(answer, 200, `Roundtable is installed in ${team}. You can close this page.`);
          },
          failure: (error: CodedError, _options, incoming, answer) => {
            logger.warn(
              { code: error.code, reason: error.message, remoteAddress: incoming.socket.remoteAddress },
              `slack install refused: ${error.message}`,
            );
            reply(answer, 400, `The install did not complete: ${error.message}`);
          },
        }),
      ),
    },
  ];
}
