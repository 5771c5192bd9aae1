import { webApi } from "@slack/bolt";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import { identifyApp, type WorkspaceAuth } from "./app-identity.js";
import type { SlackInstallations } from "./installations.js";
import type { WebApiRetryOptions } from "./web-api-retries.js";

type WebClient = webApi.WebClient;

/**
 * Which token answers which workspace. One app token (`SLACK_BOT_TOKEN`): every chat, whatever
 * its workspace. "Add to Slack" (`channels.slack.oauth`): each workspace its own installation's
 * token, so a chat of one workspace is never answered with another's.
 */
export interface SlackWorkspaces {
  readonly kind: "single" | "installed";
  /** The app in `teamId`'s workspace; a workspace not installed is refused. */
  auth(teamId: string | undefined): Promise<WorkspaceAuth>;
  /** A Web API client carrying that workspace's token. */
  clientOf(teamId: string | undefined): Promise<WebClient>;
  /**
   * Another client with the same token and a request queue of its own, for the look-ups an
   * inbound event waits for before it is stored and acked (`users.info`, `conversations.replies`,
   * user groups): a client's queue runs 100 calls at a time, and with hundreds of answers
   * streaming their edits through `clientOf`'s, an event's look-up waited behind them past
   * Slack's 3 s.
   */
  lookupClientOf(teamId: string | undefined): Promise<WebClient>;
  /** The workspace's token is gone (uninstalled, revoked): forget it; returns whether one was known. */
  forget(teamId: string): Promise<boolean>;
}

/** The one workspace of `SLACK_BOT_TOKEN`: `auth.test` once, whoever asks first (start or a post). */
export class SingleWorkspace implements SlackWorkspaces {
  readonly kind = "single";
  private identifying: Promise<WorkspaceAuth> | undefined;
  /** Known once `auth.test` answered (a chat named by its channel alone gets this workspace). */
  identity: WorkspaceAuth | undefined;

  constructor(
    private readonly client: WebClient,
    /** Same token as `client`, its own request queue (see {@link SlackWorkspaces.lookupClientOf}). */
    private readonly lookups: WebClient,
    private readonly botToken: string,
    private readonly logger: Logger,
    /** `auth.test` is a read: tried again after a 5xx or a cut connection (the client's own retries are off). */
    private readonly retries: WebApiRetryOptions,
  ) {}

  auth(): Promise<WorkspaceAuth> {
    this.identifying ??= identifyApp(this.client, this.logger, this.retries).then(
      (identity) => {
        this.identity = { ...identity, botToken: this.botToken };
        return this.identity;
      },
      (error: unknown) => {
        this.identifying = undefined; // asked again next time
        throw error;
      },
    );
    return this.identifying;
  }

  async clientOf(): Promise<WebClient> {
    return this.client;
  }

  async lookupClientOf(): Promise<WebClient> {
    return this.lookups;
  }

  async forget(teamId: string): Promise<boolean> {
    this.logger.warn(
      { team: teamId },
      "slack: the app was uninstalled or its token revoked; SLACK_BOT_TOKEN no longer works until it is installed again",
    );
    return false;
  }
}

/** How long a workspace's token is kept in memory before the store is asked again (another process may have uninstalled it). */
const rememberMs = 60_000;

/** Workspaces installed through "Add to Slack": each one's token from the store (sealed there). */
export class InstalledWorkspaces implements SlackWorkspaces {
  readonly kind = "installed";
  private readonly known = new Map<
    string,
    { auth: WorkspaceAuth; client: WebClient; lookups: WebClient; at: number }
  >();

  constructor(
    private readonly installations: SlackInstallations,
    private readonly clientOptions: webApi.WebClientOptions,
    private readonly now: () => number = Date.now,
  ) {
    installations.onChange((teamId) => this.known.delete(teamId));
  }

  async auth(teamId: string | undefined): Promise<WorkspaceAuth> {
    return (await this.entry(teamId)).auth;
  }

  async clientOf(teamId: string | undefined): Promise<WebClient> {
    return (await this.entry(teamId)).client;
  }

  async lookupClientOf(teamId: string | undefined): Promise<WebClient> {
    return (await this.entry(teamId)).lookups;
  }

  async forget(teamId: string): Promise<boolean> {
    this.known.delete(teamId);
    return this.installations.remove(teamId);
  }

  private async entry(teamId: string | undefined) {
    if (teamId === undefined) {
      throw new PlatformApiError(
        "slack chat names no workspace: with channels.slack.oauth, name chats as <team id>/<channel id> (T0123/C0TEAM)",
        { method: "workspace lookup" },
      );
    }
    const cached = this.known.get(teamId);
    if (cached && this.now() - cached.at < rememberMs) return cached;
    const auth = await this.installations.find(teamId);
    if (auth === undefined) {
      this.known.delete(teamId);
      throw new PlatformApiError(`slack workspace ${teamId} has not installed the app (Add to Slack: /slack/install)`, {
        method: "workspace lookup",
      });
    }
    const entry = {
      auth,
      client: new webApi.WebClient(auth.botToken, this.clientOptions),
      lookups: new webApi.WebClient(auth.botToken, this.clientOptions),
      at: this.now(),
    };
    this.known.set(teamId, entry);
    return entry;
  }
}
