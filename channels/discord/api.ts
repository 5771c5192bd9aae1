import { DiscordAPIError, HTTPError, RateLimitError, type RawFile, type REST, Routes } from "discord.js";
import { NetworkError, PlatformApiError, RoundtableError } from "../../src/errors/roundtable-error.js";
import { noPings, type RenderedFile } from "./render.js";
import { type Resend, type RestRetryOptions, withRestRetries } from "./rest-retries.js";

/** A channel webhook the app owns: posts under any name and avatar. */
export interface OwnWebhook {
  id: string;
  token: string;
  channelId: string;
}

/** A message as a channel read shows it, with what a look-up for an earlier post compares. */
export interface ReadMessage {
  id: string;
  content?: string;
  webhook_id?: string;
  author?: { id?: string; username?: string };
}

/** Discord's JSON error codes the adapter reacts to. */
export const discordErrorCodes = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownWebhook: 10015,
  unknownInteraction: 10062,
  missingAccess: 50001,
  missingPermissions: 50013,
  alreadyAcknowledged: 40060,
} as const;

/** Webhook and interaction tokens sit in URL paths; they never reach a log line. */
function redactUrl(url: string): string {
  return url
    .replace(/(\/webhooks\/\d+\/)[^/?]+/, "$1[redacted]")
    .replace(/(\/interactions\/\d+\/)[^/?]+/, "$1[redacted]");
}

/**
 * A discord.js REST failure as a RoundtableError: the API refused (with Discord's code, and
 * `retryAfterMs` for rate limits), or the network failed. The message carries no token.
 */
export function toPlatformError(error: unknown, what: string): RoundtableError {
  if (error instanceof RoundtableError) return error;
  if (error instanceof DiscordAPIError) {
    const refused = new PlatformApiError(
      `discord ${what} refused: ${error.status} ${String(error.code)} ${error.message} (${error.method.toUpperCase()} ${redactUrl(error.url)})`,
      { method: what, userMessage: "Discord refused the message." },
    );
    return Object.assign(refused, { discordCode: error.code, status: error.status });
  }
  if (error instanceof RateLimitError) {
    return new PlatformApiError(`discord ${what} rate limited on ${error.route}`, {
      method: what,
      retryAfterMs: error.retryAfter,
      userMessage: "Discord is rate limiting the service.",
    });
  }
  if (error instanceof HTTPError) {
    return new PlatformApiError(`discord ${what} failed: ${error.status} ${error.message}`, {
      method: what,
      retryable: error.status >= 500,
      userMessage: "Discord failed to take the message.",
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new NetworkError(`discord ${what} failed: ${redactUrl(message)}`);
}

/** Discord's JSON error code of a failure from this module, if it has one. */
export function discordCodeOf(error: unknown): number | string | undefined {
  return (error as { discordCode?: number | string } | undefined)?.discordCode;
}

function files(list: RenderedFile[] | undefined): RawFile[] | undefined {
  if (!list || list.length === 0) return undefined;
  return list.map((file) => ({
    name: file.name,
    data: Buffer.from(file.data, "utf8"),
    contentType: "application/json",
  }));
}

interface Body {
  content: string;
  components?: unknown[];
  files?: RenderedFile[];
  replyTo?: string;
  /** People this message may notify (mentioned on purpose); nobody else is pinged. */
  allowedUserIds?: string[];
  /**
   * Sent with `enforce_nonce`: Discord answers a second post with the same nonce (same author,
   * same channel, within a few minutes) with the message the first one created.
   */
  nonce?: string;
  /** Let Discord show previews (embeds) of the links in it; off by default (`SUPPRESS_EMBEDS`). */
  linkPreviews?: boolean;
}

/** Discord's message flag SUPPRESS_EMBEDS: no link previews on the message. */
export const suppressEmbeds = 1 << 2;

function messageBody(body: Body): Record<string, unknown> {
  return {
    content: body.content,
    allowed_mentions: body.allowedUserIds?.length ? { ...noPings, users: body.allowedUserIds } : noPings,
    ...(body.components === undefined ? {} : { components: body.components }),
    ...(body.replyTo === undefined
      ? {}
      : { message_reference: { message_id: body.replyTo, fail_if_not_exists: false } }),
    ...(body.files && body.files.length > 0
      ? { attachments: body.files.map((file, id) => ({ id, filename: file.name })) }
      : {}),
    ...(body.nonce === undefined ? {} : { nonce: body.nonce, enforce_nonce: true }),
    // A preview is a fetch of the link by Discord: a prompt-injected answer could leak through it.
    ...(body.linkPreviews === true ? {} : { flags: suppressEmbeds }),
  };
}

/** `?wait=true` (answer with the message) and `thread_id` (post in a thread of the webhook's channel). */
function threadQuery(threadId: string | undefined, wait = false): URLSearchParams {
  const query = new URLSearchParams();
  if (wait) query.set("wait", "true");
  if (threadId !== undefined) query.set("thread_id", threadId);
  return query;
}

/**
 * The outbound REST calls of the adapter, through discord.js's REST (buckets, 429 waits; its
 * own retries off, see rest-retries.ts). With `retries`, a call of unknown outcome is tried again
 * where that does no harm; without, every call is made once.
 */
export class DiscordApi {
  private userId: Promise<string> | undefined;

  constructor(
    readonly rest: REST,
    private readonly retries?: RestRetryOptions,
  ) {}

  private async call<T>(what: string, run: () => Promise<unknown>, resend: Resend<T> = "idempotent"): Promise<T> {
    try {
      const once = async () => (await run()) as T;
      return this.retries === undefined ? await once() : await withRestRetries(what, once, resend, this.retries);
    } catch (error) {
      throw toPlatformError(error, what);
    }
  }

  async send(channelId: string, body: Body): Promise<string> {
    return (await this.create(channelId, body)).id;
  }

  /** Create a message; with a nonce, the answer may be the message an earlier post created. */
  async create(channelId: string, body: Body): Promise<{ id: string; content: string }> {
    // Under a nonce Discord answers a second post with the first one's message: safe to send again.
    const sent = await this.call<{ id: string; content?: string }>(
      "create message",
      () => this.rest.post(Routes.channelMessages(channelId), { body: messageBody(body), files: files(body.files) }),
      body.nonce === undefined ? "never" : "idempotent",
    );
    return { id: sent.id, content: sent.content ?? "" };
  }

  /**
   * The channel's `limit` newest messages (at most 100). Not `after`: Discord answers that with
   * the messages right after the snowflake, the oldest ones, which miss the newest in a busy
   * channel.
   */
  async newestMessages(channelId: string, limit: number): Promise<ReadMessage[]> {
    return this.call("fetch messages", () =>
      this.rest.get(Routes.channelMessages(channelId), { query: new URLSearchParams({ limit: String(limit) }) }),
    );
  }

  async edit(channelId: string, messageId: string, body: Body): Promise<void> {
    await this.call("edit message", () =>
      this.rest.patch(Routes.channelMessage(channelId, messageId), {
        body: messageBody(body),
        files: files(body.files),
      }),
    );
  }

  /** Trigger Typing Indicator: shown about ten seconds, or until this bot posts in the channel. */
  async typing(channelId: string): Promise<void> {
    await this.call("trigger typing", () => this.rest.post(Routes.channelTyping(channelId)));
  }

  async delete(channelId: string, messageId: string): Promise<void> {
    await this.call("delete message", () => this.rest.delete(Routes.channelMessage(channelId, messageId)));
  }

  async fetchMessage(channelId: string, messageId: string): Promise<unknown> {
    return this.call("fetch message", () => this.rest.get(Routes.channelMessage(channelId, messageId)));
  }

  async fetchChannel(
    channelId: string,
  ): Promise<{ id: string; type: number; guild_id?: string; parent_id?: string | null; name?: string }> {
    return this.call("fetch channel", () => this.rest.get(Routes.channel(channelId)));
  }

  /** The application's id and flags (the flags say which privileged intents it has). */
  async guildMember(guildId: string, userId: string): Promise<{ roles: string[] }> {
    return this.call("fetch guild member", () => this.rest.get(Routes.guildMember(guildId, userId)));
  }

  /** The DM channel with a person (opened if need be). */
  async directChannel(userId: string): Promise<string> {
    const channel = await this.call<{ id: string }>("open DM", () =>
      this.rest.post(Routes.userChannels(), { body: { recipient_id: userId } }),
    );
    return channel.id;
  }

  async applicationFlagsAndId(): Promise<{ id: string; flags: number }> {
    const application = await this.call<{ id: string; flags?: number }>("fetch application", () =>
      this.rest.get(Routes.currentApplication()),
    );
    return { id: application.id, flags: application.flags ?? 0 };
  }

  /** This token's bot user id (asked once): a step taken back may run before the adapter started. */
  ownUserId(): Promise<string> {
    this.userId ??= this.currentUser().then(
      (user) => user.id,
      (error: unknown) => {
        this.userId = undefined;
        throw error;
      },
    );
    return this.userId;
  }

  async currentUser(): Promise<{ id: string; username: string; global_name?: string | null }> {
    return this.call("fetch current user", () => this.rest.get(Routes.user()));
  }

  async channelWebhooks(
    channelId: string,
  ): Promise<{ id: string; name: string | null; token?: string; application_id: string | null }[]> {
    return this.call("list webhooks", () => this.rest.get(Routes.channelWebhooks(channelId)));
  }

  async createWebhook(channelId: string, name: string): Promise<{ id: string; token?: string }> {
    return this.call(
      "create webhook",
      () => this.rest.post(Routes.channelWebhooks(channelId), { body: { name } }),
      "never",
    );
  }

  async executeWebhook(
    webhook: OwnWebhook,
    threadId: string | undefined,
    body: Body & { username: string; avatarUrl?: string },
    /** After a failure of unknown outcome: the post the first try made, read back (a webhook takes no nonce). */
    recover?: () => Promise<string | undefined>,
  ): Promise<string> {
    const sent = await this.call<{ id: string }>(
      "execute webhook",
      () =>
        this.rest.post(Routes.webhook(webhook.id, webhook.token), {
          auth: false,
          query: threadQuery(threadId, true),
          body: {
            ...messageBody(body),
            username: body.username,
            ...(body.avatarUrl === undefined ? {} : { avatar_url: body.avatarUrl }),
          },
          files: files(body.files),
        }),
      recover === undefined
        ? "never"
        : { recover: async () => ((id) => (id === undefined ? undefined : { id }))(await recover()) },
    );
    return sent.id;
  }

  async editWebhookMessage(
    webhook: OwnWebhook,
    threadId: string | undefined,
    messageId: string,
    body: Body,
  ): Promise<void> {
    await this.call("edit webhook message", () =>
      this.rest.patch(Routes.webhookMessage(webhook.id, webhook.token, messageId), {
        auth: false,
        query: threadQuery(threadId),
        body: messageBody(body),
      }),
    );
  }

  async deleteWebhookMessage(webhook: OwnWebhook, threadId: string | undefined, messageId: string): Promise<void> {
    await this.call("delete webhook message", () =>
      this.rest.delete(Routes.webhookMessage(webhook.id, webhook.token, messageId), {
        auth: false,
        query: threadQuery(threadId),
      }),
    );
  }

  /** Answer an interaction (type 4 reply, 6 deferred update, 7 update). */
  async respond(
    interaction: { id: string; token: string },
    body: { type: number; data?: Record<string, unknown> },
  ): Promise<void> {
    await this.call(
      "interaction callback",
      () => this.rest.post(Routes.interactionCallback(interaction.id, interaction.token), { auth: false, body }),
      "never",
    );
  }

  /** Replace a deferred interaction answer with its text. */
  async editOriginal(applicationId: string, token: string, content: string): Promise<void> {
    await this.call("interaction answer", () =>
      this.rest.patch(Routes.webhookMessage(applicationId, token, "@original"), {
        auth: false,
        body: { content, allowed_mentions: noPings },
      }),
    );
  }

  /** Register the chat commands in a guild (replacing what was there). */
  async registerGuildCommands(applicationId: string, guildId: string, commands: unknown[]): Promise<void> {
    await this.call("register commands", () =>
      this.rest.put(Routes.applicationGuildCommands(applicationId, guildId), { body: commands }),
    );
  }

  /** A follow-up to an answered interaction; `ephemeral` shows it to the clicker only. */
  async followUp(applicationId: string, token: string, content: string, ephemeral: boolean): Promise<void> {
    await this.call(
      "interaction follow-up",
      () =>
        this.rest.post(Routes.webhook(applicationId, token), {
          auth: false,
          body: { content, allowed_mentions: noPings, ...(ephemeral ? { flags: 1 << 6 } : {}) },
        }),
      "never",
    );
  }
}
