import type { Logger } from "../../src/log/logger.js";
import type { DiscordApi, OwnWebhook } from "./api.js";
import { findWebhookPost, nonceOf, type PartOnce } from "./post-once.js";
import type { RenderedFile } from "./render.js";

/** One part of a message to post or edit. */
export interface PostBody {
  content: string;
  components?: unknown[];
  files?: RenderedFile[];
  replyTo?: string;
  allowedUserIds?: string[];
}

/**
 * Who posts into one chat, and how: the bot (or an agent's own bot) in a channel or thread,
 * or the app's channel webhook under an agent's name and avatar (`thread_id` for threads).
 * `prefixName` is set when the text must start with the author's bold name.
 */
export interface Poster {
  readonly prefixName: string | undefined;
  /**
   * Post one part. With `once`, an earlier run's post of the same part is not made again: the
   * bot sends a nonce, a webhook looks for it when `once.mayExist`.
   */
  send(body: PostBody, once?: PartOnce): Promise<string>;
  edit(messageId: string, body: PostBody): Promise<void>;
  delete(messageId: string): Promise<void>;
}

export class BotPoster implements Poster {
  constructor(
    private readonly api: DiscordApi,
    private readonly channelId: string,
    readonly prefixName: string | undefined,
  ) {}

  async send(body: PostBody, once?: PartOnce): Promise<string> {
    if (!once) return this.api.send(this.channelId, body);
    const created = await this.api.create(this.channelId, { ...body, nonce: nonceOf(once.key) });
    // Discord answered with the message an earlier run created (the same nonce); a stream's
    // first part may show less than this text: make it show this one.
    if (created.content.trim() !== body.content.trim()) await this.api.edit(this.channelId, created.id, body);
    return created.id;
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.edit(this.channelId, messageId, body);
  }

  delete(messageId: string): Promise<void> {
    return this.api.delete(this.channelId, messageId);
  }
}

export class WebhookPoster implements Poster {
  readonly prefixName = undefined;

  constructor(
    private readonly api: DiscordApi,
    private readonly webhook: OwnWebhook,
    private readonly threadId: string | undefined,
    private readonly identity: { username: string; avatarUrl?: string },
    private readonly logger: Logger,
  ) {}

  async send(body: PostBody, once?: PartOnce): Promise<string> {
    if (once?.mayExist) {
      const channelId = this.threadId ?? this.webhook.channelId;
      const where = { channelId, webhookId: this.webhook.id, username: this.identity.username };
      const found = await findWebhookPost(this.api, where, body.content, once, this.logger);
      if (found) {
        if (found.content !== body.content) await this.edit(found.id, body);
        return found.id;
      }
    }
    return this.api.executeWebhook(this.webhook, this.threadId, { ...body, ...this.identity });
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.editWebhookMessage(this.webhook, this.threadId, messageId, body);
  }

  delete(messageId: string): Promise<void> {
    return this.api.deleteWebhookMessage(this.webhook, this.threadId, messageId);
  }
}
