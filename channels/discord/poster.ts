import type { Logger } from "../../src/log/logger.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes, type OwnWebhook, type ReadMessage } from "./api.js";
import type { PartKey } from "../../src/world/channel-adapter.js";
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
   * Post one part. With `key`, the bot sends the part's nonce: Discord answers a repeat within
   * minutes with the message the first post created (made to show this body). A webhook cannot.
   */
  send(body: PostBody, key?: PartKey): Promise<string>;
  /** An earlier run's post of the part `key` names, read from the channel (see findEarlierPost). */
  find(content: string, key: PartKey): Promise<{ id: string; content: string } | undefined>;
  edit(messageId: string, body: PostBody): Promise<void>;
  delete(messageId: string): Promise<void>;
}

export class BotPoster implements Poster {
  constructor(
    private readonly api: DiscordApi,
    private readonly channelId: string,
    readonly prefixName: string | undefined,
    private readonly logger: Logger,
  ) {}

  async send(body: PostBody, key?: PartKey): Promise<string> {
    if (!key) return this.api.send(this.channelId, body);
    // Discord may answer with the message an earlier run created (the same nonce).
    return reuse(this, await this.createOnce(body, key.key), body);
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.edit(this.channelId, messageId, body);
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

  /** The nonce covers a few minutes; a run taken back later finds its post by reading. */
  async find(content: string, key: PartKey) {
    let botUserId: string;
    try {
      botUserId = await this.api.ownUserId();
    } catch (error) {
      this.logger.warn({ err: error, key: key.key }, "could not learn the bot's id to look for an earlier post");
      return undefined;
    }
    const fromBot = (message: ReadMessage) => message.author?.id === botUserId && message.webhook_id === undefined;
    return findEarlierPost(this.api, this.channelId, fromBot, content, key, this.logger);
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

  find(content: string, key: PartKey) {
    const channelId = this.threadId ?? this.webhook.channelId;
    const { id } = this.webhook;
    const fromHook = (message: ReadMessage) =>
      message.webhook_id === id && message.author?.username === this.identity.username;
    // Every message of this webhook under this name is a post of this agent: one not stored is this one.
    return findEarlierPost(this.api, channelId, fromHook, content, key, this.logger, "unstored");
  }

  /**
   * A webhook takes no nonce: after a failure of unknown outcome (a 5xx, a cut connection) the
   * post is read back from the channel (the newest one of this name not stored as another post,
   * since just before this try) before it is sent again.
   */
  send(body: PostBody, key?: PartKey): Promise<string> {
    const since = new Date();
    const recover =
      key === undefined
        ? undefined
        : async () => {
            const found = await this.find(body.content, { ...key, mayExist: true, since });
            return found === undefined ? undefined : reuse(this, found, body);
          };
    return this.api.executeWebhook(this.webhook, this.threadId, { ...body, ...this.identity }, recover);
  }

  edit(messageId: string, body: PostBody): Promise<void> {
    return this.api.editWebhookMessage(this.webhook, this.threadId, messageId, body);
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
export async function reuse(poster: Poster, message: { id: string; content: string }, body: PostBody): Promise<string> {
  if (message.content.trim() !== body.content.trim()) await poster.edit(message.id, body);
  return message.id;
}
