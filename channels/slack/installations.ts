import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelInstallationStore } from "../../src/world/channel-adapter.js";
import type { SecretSeal } from "../kit/secret-seal.js";
import type { WorkspaceAuth } from "./app-identity.js";

/** What a sealed token is bound to: its platform and workspace. */
const sealedFor = (teamId: string): string => `slack:${teamId}`;

/**
 * "Add to Slack" installations in the database: @slack/oauth's `InstallationStore` over the
 * `Store`'s installations, the bot token sealed (AES-256-GCM) before it is stored and opened only
 * to answer its own workspace. Tokens never reach a log line. Org-wide (Enterprise Grid)
 * installs are refused: not built.
 */
export class SlackInstallations implements InstallationStore {
  private readonly listeners: ((teamId: string) => void)[] = [];

  constructor(
    private readonly store: ChannelInstallationStore,
    private readonly seal: SecretSeal,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Called with a workspace whose installation changed (installed again, removed). */
  onChange(listener: (teamId: string) => void): void {
    this.listeners.push(listener);
  }

  async storeInstallation(installation: Installation): Promise<void> {
    const teamId = installation.team?.id;
    if (installation.isEnterpriseInstall || teamId === undefined) {
      throw new PlatformApiError("slack org-wide (Enterprise Grid) installs are not built; install into a workspace", {
        method: "oauth.v2.access",
      });
    }
    const bot = installation.bot;
    if (!bot?.token || !bot.id || !bot.userId) {
      throw new PlatformApiError("slack install gave no bot token (ask for bot scopes, not only user scopes)", {
        method: "oauth.v2.access",
      });
    }
    await this.store.saveChannelInstallation({
      platform: "slack",
      workspace: teamId,
      botId: bot.id,
      botUserId: bot.userId,
      scopes: bot.scopes,
      sealedToken: this.seal.seal(bot.token, sealedFor(teamId)),
      installedBy: installation.user.id,
      installedAt: this.now(),
    });
    this.changed(teamId);
    this.logger.info({ team: teamId, installedBy: installation.user.id }, "slack app installed in a workspace");
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const auth = query.teamId === undefined ? undefined : await this.find(query.teamId);
    if (auth === undefined) {
      throw new PlatformApiError(`slack workspace ${query.teamId ?? "(none)"} is not installed`, {
        method: "installation lookup",
      });
    }
    return {
      team: { id: auth.teamId },
      enterprise: undefined,
      user: { id: "", token: undefined, scopes: undefined },
      bot: { id: auth.botId, userId: auth.botUserId, token: auth.botToken, scopes: [...(auth.scopes ?? [])] },
      isEnterpriseInstall: false,
      authVersion: "v2",
    };
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    if (query.teamId !== undefined) await this.remove(query.teamId);
  }

  /** The workspace's bot, its token opened; undefined when it is not installed. */
  async find(teamId: string): Promise<WorkspaceAuth | undefined> {
    const record = await this.store.findChannelInstallation("slack", teamId);
    if (record === undefined) return undefined;
    const botToken = this.seal.open(record.sealedToken, sealedFor(teamId));
    if (botToken === undefined) {
      this.logger.error(
        { team: teamId },
        "slack: the stored token of this workspace does not open with ROUNDTABLE_SECRET_KEY (was the key changed?); install the app there again",
      );
      return undefined;
    }
    return {
      teamId,
      botId: record.botId,
      botUserId: record.botUserId,
      botToken,
      scopes: new Set(record.scopes),
    };
  }

  /** Delete the workspace's installation (and so its token); returns whether there was one. */
  async remove(teamId: string): Promise<boolean> {
    const removed = await this.store.deleteChannelInstallation("slack", teamId);
    this.changed(teamId);
    return removed;
  }

  private changed(teamId: string): void {
    for (const listener of this.listeners) listener(teamId);
  }
}
