import type { Logger } from "../../src/log/logger.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes, type OwnWebhook, type ReadMessage } from "./api.js";
import type { PartOnce } from "../../src/world/channel-adapter.js";
import { findEarlierPost, nonceOf } from "./post-once.js";
import type { RenderedFile } from "./render.js";

/** One part of a message to post or edit. */
export interface PostBody {
  content: string;
  components?: unknown[];
  files?: RenderedFile[];
  replyTo?: string;
  allowedUserIds?: string[];
  /** Let Discord show link previews (the chat's world has `linkPreviews: true`). */
  linkPreviews?: boolean;
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
    private readonly logger: Logger,
    private readonly linkPreviews = false,
  ) {}

  async send(part: PostBody, once?: PartOnce): Promise<string> {
    const body = this.linkPreviews ? { ...part, linkPreviews: true } : part;
    if (!once) return this.api.send(this.channelId, body);
    if (once.mayExist) {
      // The nonce covers a few minutes; a run taken back later finds its post by reading.
      const found = await this.findEarlier(body.content, once);
      if (found) return reuse(this, found, body);
    }
    // Discord may answer with the message an earlier run created (the same nonce).
    return reuse(this, await this.createOnce(body, once.key), body);
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.edit(this.channelId, messageId, this.linkPreviews ? { ...body, linkPreviews: true } : body);
  }

  /**
   * Create the part under its key's nonce. Discord answers a nonce whose message was deleted
   * since (a stream that failed was removed, and its retry posts anew) with Unknown Message for
   * minutes, never creating it again: then the part's second nonce is used, and if that one's
   * message was removed too, none (a warn log line each time).
   */
  private async createOnce(body: PostBody, key: string): Promise<{ id: string; content: string }> {
    for (const nonce of [nonceOf(key), nonceOf(`${key}:again`)]) {
      try {
        return await this.api.create(this.channelId, { ...body, nonce });
      } catch (error) {
        if (discordCodeOf(error) !== discordErrorCodes.unknownMessage) throw error;
        this.logger.warn({ key, nonce }, "Discord says this nonce's message was removed; posting it anew");
      }
    }
    return this.api.create(this.channelId, body);
  }

  private async findEarlier(content: string, once: PartOnce) {
    let botUserId: string;
    try {
      botUserId = await this.api.ownUserId();
    } catch (error) {
      this.logger.warn({ err: error, key: once.key }, "could not learn the bot's id to look for an earlier post");
      return undefined;
    }
    const fromBot = (message: ReadMessage) => message.author?.id === botUserId && message.webhook_id === undefined;
    return findEarlierPost(this.api, this.channelId, fromBot, content, once, this.logger);
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
    private readonly linkPreviews = false,
  ) {}

  async send(body: PostBody, once?: PartOnce): Promise<string> {
    if (once?.mayExist) {
      const channelId = this.threadId ?? this.webhook.channelId;
      const { id } = this.webhook;
      const fromHook = (message: ReadMessage) =>
        message.webhook_id === id && message.author?.username === this.identity.username;
      // Every message of this webhook under this name is a post of this agent: one not stored is this one.
      const found = await findEarlierPost(this.api, channelId, fromHook, body.content, once, this.logger, "unstored");
      if (found) return reuse(this, found, body);
    }
    return this.api.executeWebhook(this.webhook, this.threadId, {
      ...body,
      ...this.identity,
      ...(this.linkPreviews ? { linkPreviews: true } : {}),
    });
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.editWebhookMessage(
      this.webhook,
      this.threadId,
      messageId,
      this.linkPreviews ? { ...body, linkPreviews: true } : body,
    );
  }

  delete(messageId: string): Promise<void> {
    return this.api.deleteWebhookMessage(this.webhook, this.threadId, messageId);
  }
}

/**
 * An earlier run's message of this part (found, or answered for its nonce), made to show this
 * text if it differs: that run may have posted a stream's first, shorter text. Discord keeps
 * content without its outer whitespace, so only a difference inside it is an edit.
 */
async function reuse(poster: Poster, message: { id: string; content: string }, body: PostBody): Promise<string> {
  if (message.content.trim() !== body.content.trim()) await poster.edit(message.id, body);
  return message.id;
}
