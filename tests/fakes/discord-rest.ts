import { listMessages, messageWithNonce, nonceOf } from "./discord-history.js";
import {
  type DiscordState,
  ephemeralFlag,
  type FakeAttachment,
  type FakeDiscordUser,
  type Json,
  type StoredDiscordMessage,
  snowflake,
} from "./discord-state.js";

/**
 * The REST routes of the fake Discord (`/api/v10/...`), working on its state. Each handler
 * gets the parsed request and returns a status and a JSON body (or none, for 204).
 */

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The bot token from `Authorization: Bot …`, if any. */
  token: string | undefined;
  body: Json;
  /** Multipart files: name, content as UTF-8 and as bytes, the form part (`files[0]`). */
  files: { filename: string; content: string; bytes?: Uint8Array; part?: string }[];
}

export interface RestReply {
  status: number;
  body?: unknown;
}

/** What the routes need from the fake beyond its state. */
export interface RestContext {
  state: DiscordState;
  gatewayUrl: string;
  /** The bot user and application of a token. */
  bot(token: string): { user: FakeDiscordUser; applicationId: string; flags: number } | undefined;
  /** A MESSAGE_CREATE / MESSAGE_UPDATE / … for the gateway. */
  dispatch(t: string, d: unknown): void;
  /** The bot token whose gateway session is the main one (echoes go there). */
  applicationCommands: Map<string, unknown[]>;
}

const ok = (body: unknown): RestReply => ({ status: 200, body });
const noContent: RestReply = { status: 204 };
const error = (status: number, code: number, message: string): RestReply => ({ status, body: { code, message } });
const unknownChannel = error(404, 10003, "Unknown Channel");
const unknownMessage = error(404, 10008, "Unknown Message");
const unknownWebhook = error(404, 10015, "Unknown Webhook");
const missingPermissions = error(403, 50013, "Missing Permissions");
const emptyMessage = error(400, 50006, "Cannot send an empty message");

type Route = {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handle: (request: RestRequest, match: string[], context: RestContext) => RestReply;
};

function messageFields(
  request: RestRequest,
): { content: string; components: Json[]; embeds: Json[]; attachments: FakeAttachment[]; flags: number } | RestReply {
  const content = typeof request.body.content === "string" ? request.body.content : "";
  if (content.length > 2000) return error(400, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.");
  const attachments = request.files.map((file) => ({
    id: snowflake(),
    filename: file.filename,
    size: file.bytes?.length ?? file.content.length,
    content: file.content,
    ...(file.bytes === undefined ? {} : { bytes: file.bytes }),
  }));
  const components = Array.isArray(request.body.components) ? (request.body.components as Json[]) : [];
  const embeds = Array.isArray(request.body.embeds) ? (request.body.embeds as Json[]) : [];
  if (content === "" && attachments.length === 0 && embeds.length === 0 && components.length === 0) return emptyMessage;
  return { content, components, embeds, attachments, flags: Number(request.body.flags ?? 0) };
}

function isReply(value: unknown): value is RestReply {
  return typeof value === "object" && value !== null && "status" in value;
}

function editMessage(message: StoredDiscordMessage, request: RestRequest, context: RestContext): RestReply {
  if (typeof request.body.content === "string") {
    if (request.body.content.length > 2000)
      return error(400, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.");
    message.content = request.body.content;
  }
  if (Array.isArray(request.body.components)) message.components = request.body.components as Json[];
  if (Array.isArray(request.body.embeds)) message.embeds = request.body.embeds as Json[];
  // Discord lets an edit set SUPPRESS_EMBEDS (the flags are recorded as sent).
  if (typeof request.body.flags === "number") message.flags = request.body.flags;
  if (request.files.length > 0) {
    message.attachments = request.files.map((file) => ({
      id: snowflake(),
      filename: file.filename,
      size: file.content.length,
      content: file.content,
    }));
  }
  message.editCount += 1;
  message.history.push(message.content);
  message.edited_timestamp = new Date().toISOString();
  const payload = context.state.toPayload(message);
  context.dispatch("MESSAGE_UPDATE", payload);
  return ok(payload);
}

function postInChannel(
  channelId: string,
  request: RestRequest,
  context: RestContext,
  author: FakeDiscordUser,
  extra: Partial<StoredDiscordMessage>,
): RestReply {
  const channel = context.state.channels.get(channelId);
  if (!channel) return unknownChannel;
  const fields = messageFields(request);
  if (isReply(fields)) return fields;
  const reference = request.body.message_reference as { message_id?: string } | undefined;
  const message = context.state.addMessage({
    channel_id: channelId,
    ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
    author,
    ...fields,
    ...(reference?.message_id
      ? { message_reference: { message_id: reference.message_id, channel_id: channelId } }
      : {}),
    ...extra,
  });
  const payload = context.state.toPayload(message);
  context.dispatch("MESSAGE_CREATE", payload);
  return ok(payload);
}

function webhookOf(context: RestContext, id: string | undefined, token: string | undefined) {
  const webhook = id ? context.state.webhooks.get(id) : undefined;
  return webhook && webhook.token === token ? webhook : undefined;
}

function webhookPayload(
  webhook: {
    id: string;
    token: string;
    channel_id: string;
    guild_id?: string;
    name: string;
    application_id: string | null;
  },
  withToken: boolean,
): Json {
  return {
    id: webhook.id,
    type: 1,
    channel_id: webhook.channel_id,
    guild_id: webhook.guild_id ?? null,
    name: webhook.name,
    avatar: null,
    application_id: webhook.application_id,
    ...(withToken ? { token: webhook.token } : {}),
  };
}

/** The channel a webhook message lands in: the webhook's channel, or a thread of it. */
function webhookTarget(
  webhook: { channel_id: string },
  request: RestRequest,
  context: RestContext,
): string | RestReply {
  const threadId = request.query.get("thread_id");
  if (!threadId) return webhook.channel_id;
  const thread = context.state.channels.get(threadId);
  if (!thread || thread.parent_id !== webhook.channel_id) return error(400, 220001, "Unknown thread for this webhook");
  return threadId;
}

function interactionOf(context: RestContext, token: string | undefined) {
  return [...context.state.interactions.values()].find((interaction) => interaction.token === token);
}

export const routes: Route[] = [
  {
    method: "GET",
    pattern: /^\/gateway\/bot$/,
    auth: true,
    handle: (_r, _m, context) =>
      ok({
        url: context.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      }),
  },
  {
    method: "GET",
    pattern: /^\/users\/@me$/,
    auth: true,
    handle: (request, _m, context) => ok({ ...context.bot(request.token ?? "")?.user, discriminator: "0", bot: true }),
  },
  {
    method: "GET",
    pattern: /^\/applications\/@me$/,
    auth: true,
    handle: (request, _m, context) => {
      const bot = context.bot(request.token ?? "");
      return ok({
        id: bot?.applicationId,
        name: bot?.user.username,
        flags: bot?.flags ?? 0,
        bot_public: true,
        bot_require_code_grant: false,
      });
    },
  },
  {
    method: "GET",
    pattern: /^\/channels\/(\d+)$/,
    auth: true,
    handle: (_r, [, id], context) => {
      const channel = context.state.channels.get(id ?? "");
      if (!channel) return unknownChannel;
      const { manageWebhooks: _manage, ...payload } = channel;
      return ok(payload);
    },
  },
  {
    method: "GET",
    pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/,
    auth: true,
    handle: (_r, [, channelId, messageId], context) => {
      const message = context.state.messages.get(messageId ?? "");
      if (!message || message.deleted || message.channel_id !== channelId) return unknownMessage;
      return ok(context.state.toPayload(message));
    },
  },
  {
    method: "GET",
    pattern: /^\/channels\/(\d+)\/messages$/,
    auth: true,
    handle: (request, [, channelId], context) => listMessages(request, channelId ?? "", context),
  },
  {
    // Trigger Typing Indicator: the bot shows as typing for about ten seconds (or until it posts).
    method: "POST",
    pattern: /^\/channels\/(\d+)\/typing$/,
    auth: true,
    handle: (request, [, channelId], context) => {
      if (!context.bot(request.token ?? "")) return error(401, 0, "401: Unauthorized");
      if (!context.state.channels.get(channelId ?? "")) return unknownChannel;
      return noContent;
    },
  },
  {
    method: "POST",
    pattern: /^\/channels\/(\d+)\/messages$/,
    auth: true,
    handle: (request, [, channelId], context) => {
      const bot = context.bot(request.token ?? "");
      if (!bot) return error(401, 0, "401: Unauthorized");
      const earlier = messageWithNonce(context, channelId ?? "", request);
      // Discord does not create again a message of a remembered nonce that was deleted since.
      if (earlier?.deleted) return unknownMessage;
      if (earlier) return ok(context.state.toPayload(earlier));
      return postInChannel(
        channelId ?? "",
        request,
        context,
        { ...bot.user, bot: true },
        { sentByToken: request.token ?? "", application_id: bot.applicationId, ...nonceOf(request) },
      );
    },
  },
  {
    method: "PATCH",
    pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/,
    auth: true,
    handle: (request, [, channelId, messageId], context) => {
      const message = context.state.messages.get(messageId ?? "");
      if (!message || message.deleted || message.channel_id !== channelId) return unknownMessage;
      if (message.sentByToken !== request.token)
        return error(403, 50005, "Cannot edit a message authored by another user");
      return editMessage(message, request, context);
    },
  },
  {
    method: "DELETE",
    pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/,
    auth: true,
    handle: (_r, [, channelId, messageId], context) => {
      const message = context.state.messages.get(messageId ?? "");
      if (!message || message.deleted || message.channel_id !== channelId) return unknownMessage;
      message.deleted = true;
      context.dispatch("MESSAGE_DELETE", {
        id: message.id,
        channel_id: message.channel_id,
        guild_id: message.guild_id,
      });
      return noContent;
    },
  },
  {
    method: "GET",
    pattern: /^\/channels\/(\d+)\/webhooks$/,
    auth: true,
    handle: (request, [, channelId], context) => {
      const channel = context.state.channels.get(channelId ?? "");
      if (!channel) return unknownChannel;
      if (!channel.manageWebhooks) return missingPermissions;
      const applicationId = context.bot(request.token ?? "")?.applicationId;
      const hooks = [...context.state.webhooks.values()].filter((hook) => hook.channel_id === channelId);
      return ok(hooks.map((hook) => webhookPayload(hook, hook.application_id === applicationId)));
    },
  },
  {
    method: "POST",
    pattern: /^\/channels\/(\d+)\/webhooks$/,
    auth: true,
    handle: (request, [, channelId], context) => {
      const channel = context.state.channels.get(channelId ?? "");
      if (!channel) return unknownChannel;
      if (channel.type !== 0) return error(400, 50024, "Cannot execute action on this channel type");
      if (!channel.manageWebhooks) return missingPermissions;
      const bot = context.bot(request.token ?? "");
      const webhook = {
        id: snowflake(),
        token: `hook-${snowflake()}`,
        channel_id: channel.id,
        ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
        name: String(request.body.name ?? "Captain Hook"),
        application_id: bot?.applicationId ?? null,
        createdByToken: request.token ?? "",
      };
      context.state.webhooks.set(webhook.id, webhook);
      return ok(webhookPayload(webhook, true));
    },
  },
  {
    method: "POST",
    pattern: /^\/webhooks\/(\d+)\/([^/]+)$/,
    auth: false,
    handle: (request, [, id, token], context) => {
      const interaction = interactionOf(context, token);
      if (interaction && interaction.applicationId === id) {
        const content = String(request.body.content ?? "");
        const flags = Number(request.body.flags ?? 0);
        if ((flags & ephemeralFlag) !== 0) interaction.ephemeral.push(content);
        else interaction.followups.push(content);
        return ok({
          id: snowflake(),
          channel_id: interaction.channelId,
          content,
          flags,
          author: { id, username: "app" },
          attachments: [],
          embeds: [],
          components: [],
          timestamp: new Date().toISOString(),
        });
      }
      const webhook = webhookOf(context, id, token);
      if (!webhook) return unknownWebhook;
      const target = webhookTarget(webhook, request, context);
      if (typeof target !== "string") return target;
      const author: FakeDiscordUser = {
        id: webhook.id,
        username: String(request.body.username ?? webhook.name),
        bot: true,
        avatar: typeof request.body.avatar_url === "string" ? request.body.avatar_url : null,
      };
      const reply = postInChannel(target, request, context, author, {
        webhook_id: webhook.id,
        ...(webhook.application_id ? { application_id: webhook.application_id } : {}),
      });
      // Without ?wait=true Discord answers 204 and the caller learns no message id.
      return request.query.get("wait") === "true" || reply.status !== 200 ? reply : noContent;
    },
  },
  {
    method: "PATCH",
    pattern: /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(\d+|@original)$/,
    auth: false,
    handle: (request, [, id, token, messageId], context) => {
      const interaction = interactionOf(context, token);
      if (interaction && messageId === "@original" && interaction.messageId === "") {
        // The answer to a deferred command: shown where the deferral said (ephemeral or not).
        const content = String(request.body.content ?? "");
        const deferred = interaction.callbacks.find((each) => each.type === 5);
        if ((Number(deferred?.data?.flags ?? 0) & ephemeralFlag) !== 0) interaction.ephemeral.push(content);
        else interaction.followups.push(content);
        return ok({ id: snowflake(), channel_id: interaction.channelId, content });
      }
      if (interaction && messageId === "@original") {
        const message = context.state.messages.get(interaction.messageId);
        if (!message) return unknownMessage;
        return editMessage(message, request, context);
      }
      const webhook = webhookOf(context, id, token);
      if (!webhook) return unknownWebhook;
      const message = context.state.messages.get(messageId ?? "");
      if (!message || message.deleted || message.webhook_id !== webhook.id) return unknownMessage;
      const target = webhookTarget(webhook, request, context);
      if (typeof target !== "string") return target;
      if (message.channel_id !== target) return unknownMessage;
      return editMessage(message, request, context);
    },
  },
  {
    method: "DELETE",
    pattern: /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(\d+)$/,
    auth: false,
    handle: (request, [, id, token, messageId], context) => {
      const webhook = webhookOf(context, id, token);
      if (!webhook) return unknownWebhook;
      const message = context.state.messages.get(messageId ?? "");
      if (!message || message.deleted || message.webhook_id !== webhook.id) return unknownMessage;
      const target = webhookTarget(webhook, request, context);
      if (typeof target !== "string") return target;
      message.deleted = true;
      context.dispatch("MESSAGE_DELETE", {
        id: message.id,
        channel_id: message.channel_id,
        guild_id: message.guild_id,
      });
      return noContent;
    },
  },
  {
    method: "POST",
    pattern: /^\/interactions\/(\d+)\/([^/]+)\/callback$/,
    auth: false,
    handle: (request, [, id, token], context) => {
      const interaction = context.state.interactions.get(id ?? "");
      if (!interaction || interaction.token !== token) return error(404, 10062, "Unknown interaction");
      // Discord forgets an interaction not answered within 3 seconds.
      if (Date.now() - interaction.dispatchedAt > 3000) return error(404, 10062, "Unknown interaction");
      if (interaction.callbacks.length > 0) return error(400, 40060, "Interaction has already been acknowledged.");
      const type = Number(request.body.type);
      const data = (request.body.data ?? undefined) as Json | undefined;
      interaction.callbacks.push({ type, ...(data ? { data } : {}), at: Date.now() });
      if (type === 4 && data) {
        const content = String(data.content ?? "");
        if ((Number(data.flags ?? 0) & ephemeralFlag) !== 0) interaction.ephemeral.push(content);
        else interaction.followups.push(content);
      }
      if (type === 7 && data) {
        const message = context.state.messages.get(interaction.messageId);
        if (message) editMessage(message, { ...request, body: data }, context);
      }
      return noContent;
    },
  },
  {
    method: "PUT",
    pattern: /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/,
    auth: true,
    handle: (request, [, applicationId, guildId], context) => {
      const commands = Array.isArray(request.body) ? (request.body as unknown[]) : [];
      context.applicationCommands.set(`${applicationId}:${guildId ?? ""}`, commands);
      return ok(commands.map((command) => ({ id: snowflake(), application_id: applicationId, ...(command as Json) })));
    },
  },
  {
    method: "GET",
    pattern: /^\/guilds\/(\d+)\/members\/(\d+)$/,
    auth: true,
    handle: (_r, [, guildId, userId], context) => {
      const member = context.state.member(guildId ?? "", userId ?? "");
      if (!member) return error(404, 10007, "Unknown Member");
      return ok({
        user: member.user,
        roles: member.roles,
        nick: member.nick ?? null,
        joined_at: new Date(0).toISOString(),
      });
    },
  },
  {
    method: "POST",
    pattern: /^\/users\/@me\/channels$/,
    auth: true,
    handle: (request, _m, context) => {
      const recipientId = String(request.body.recipient_id ?? "");
      const user = context.state.users.get(recipientId);
      if (!user) return error(400, 50035, "Invalid Form Body");
      const existing = [...context.state.channels.values()].find(
        (channel) => channel.type === 1 && channel.recipients?.[0]?.id === recipientId,
      );
      const channel = existing ?? { id: snowflake(), type: 1 as const, recipients: [user], manageWebhooks: false };
      context.state.channels.set(channel.id, channel);
      const { manageWebhooks: _manage, ...payload } = channel;
      return ok(payload);
    },
  },
];
