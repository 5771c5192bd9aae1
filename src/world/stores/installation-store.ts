import type { Platform } from "../chat-ref.js";

/**
 * An app installed in one workspace through "Add to Slack" (docs/slack.md): its bot's ids and
 * scopes, and its bot token sealed (AES-256-GCM, `channels/kit/secret-seal.ts`): the store
 * never sees the token itself.
 */
export interface ChannelInstallationRecord {
  platform: Platform;
  /** The workspace (Slack team id, `T0123`). */
  workspace: string;
  botId: string;
  botUserId: string;
  scopes: string[];
  /** The bot token, sealed with the service's secret key. */
  sealedToken: string;
  /** Who installed the app (a user id), when the platform said. */
  installedBy: string | undefined;
  installedAt: Date;
}

/**
 * Installations kept in the database, so every process of a deployment answers each workspace
 * with its own token (docs/architecture.md, "Ports"). Part of the `Store`.
 */
export interface ChannelInstallationStore {
  /** Record an installation; a workspace installed again replaces its earlier one. */
  saveChannelInstallation(record: ChannelInstallationRecord): Promise<void>;
  findChannelInstallation(platform: Platform, workspace: string): Promise<ChannelInstallationRecord | undefined>;
  /** Forget a workspace's installation (uninstalled, tokens revoked); returns whether one was there. */
  deleteChannelInstallation(platform: Platform, workspace: string): Promise<boolean>;
}
