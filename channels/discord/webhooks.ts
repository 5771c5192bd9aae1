import type { ChannelClock } from "../../src/world/channel-adapter.js";
import type { Logger } from "../../src/log/logger.js";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes, type OwnWebhook } from "./api.js";

/** How long a channel where the bot may not manage webhooks is left alone before asking again. */
const retryRefusedMs = 10 * 60_000;

/**
 * The channel webhooks the app owns, one per channel: found again by name (and application)
 * or created once, then reused for every agent (name and avatar go with each post). Where the
 * bot lacks Manage Webhooks, `get` answers undefined and agents post through the bot.
 */
export class WebhookDirectory {
  private readonly hooks = new Map<string, OwnWebhook>();
  private readonly pending = new Map<string, Promise<OwnWebhook | undefined>>();
  private readonly refused = new Map<string, number>();
  private readonly ownIds = new Set<string>();

  constructor(
    private readonly api: DiscordApi,
    private readonly name: string,
    private readonly applicationId: () => string,
    private readonly clock: ChannelClock,
    private readonly logger: Logger,
  ) {}

  /** Is `webhookId` one of ours (its posts are the service's own)? */
  isOwn(webhookId: string): boolean {
    return this.ownIds.has(webhookId);
  }

  /** The app's webhook in a guild text channel, or undefined when the bot may not have one there. */
  async get(channelId: string): Promise<OwnWebhook | undefined> {
    const known = this.hooks.get(channelId);
    if (known) return known;
    const refusedAt = this.refused.get(channelId);
    if (refusedAt !== undefined && this.clock.now() - refusedAt < retryRefusedMs) return undefined;
    let pending = this.pending.get(channelId);
    if (!pending) {
      pending = this.findOrCreate(channelId).finally(() => this.pending.delete(channelId));
      this.pending.set(channelId, pending);
    }
    return pending;
  }

  /** The webhook stopped working (deleted by someone): forget it, the next post finds or makes one. */
  forget(channelId: string): void {
    this.hooks.delete(channelId);
  }

  private async findOrCreate(channelId: string): Promise<OwnWebhook | undefined> {
    try {
      const existing = (await this.api.channelWebhooks(channelId)).find(
        (hook) => hook.name === this.name && hook.application_id === this.applicationId() && hook.token !== undefined,
      );
      const hook = existing ?? (await this.api.createWebhook(channelId, this.name));
      if (hook.token === undefined) throw new PlatformApiError("webhook without a token", { method: "createWebhook" });
      const webhook = { id: hook.id, token: hook.token, channelId };
      this.hooks.set(channelId, webhook);
      this.ownIds.add(webhook.id);
      this.refused.delete(channelId);
      this.logger.info(
        { channel: channelId, webhook: webhook.id, created: existing === undefined },
        "discord webhook ready for agents' names",
      );
      return webhook;
    } catch (error) {
      const code = discordCodeOf(error);
      if (code === discordErrorCodes.missingPermissions || code === discordErrorCodes.missingAccess) {
        this.logger.warn(
          { channel: channelId },
          "the discord bot may not manage webhooks in this channel: agents post through the bot with their name in bold. " +
            "Give the bot the Manage Webhooks permission to post under the agents' names and avatars.",
        );
      } else {
        this.logger.warn(
          { err: error, channel: channelId },
          "discord webhook unavailable; agents post through the bot",
        );
      }
      this.refused.set(channelId, this.clock.now());
      return undefined;
    }
  }
}
