import type { DiscordApi, OwnWebhook } from "./api.js";
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
  send(body: PostBody): Promise<string>;
  edit(messageId: string, body: PostBody): Promise<void>;
  delete(messageId: string): Promise<void>;
}

export class BotPoster implements Poster {
  constructor(
    private readonly api: DiscordApi,
    private readonly channelId: string,
    readonly prefixName: string | undefined,
  ) {}

  send(body: PostBody): Promise<string> {
    return this.api.send(this.channelId, body);
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
  ) {}

  send(body: PostBody): Promise<string> {
    return this.api.executeWebhook(this.webhook, this.threadId, { ...body, ...this.identity });
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.editWebhookMessage(this.webhook, this.threadId, messageId, body);
  }

  delete(messageId: string): Promise<void> {
    return this.api.deleteWebhookMessage(this.webhook, this.threadId, messageId);
  }
}
