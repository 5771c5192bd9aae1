import type { FakeSlack } from "./slack-api.js";
import type { SlackStoredMessage } from "./slack-state.js";

export interface WebApiAnswer {
  status: number;
  body: Record<string, unknown> & { ok?: boolean };
  retryAfter?: number;
}

const ok = (body: Record<string, unknown> = {}): WebApiAnswer => ({ status: 200, body: { ok: true, ...body } });
const refuse = (error: string): WebApiAnswer => ({ status: 200, body: { ok: false, error } });

function text(params: Record<string, unknown>, key: string): string | undefined {
  const value = params[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** One Web API call against the fake's state. */
export function handleWebApi(
  fake: FakeSlack,
  method: string,
  params: Record<string, unknown>,
  authorization: string,
): WebApiAnswer {
  const token = authorization.replace(/^Bearer\s+/i, "") || text(params, "token");
  if (method === "apps.connections.open") {
    if (!fake.setup.appToken || token !== fake.setup.appToken) return refuse("invalid_auth");
    return ok({ url: fake.socket.ticketUrl(fake.origin) });
  }
  if (token !== fake.setup.botToken) return refuse(token ? "invalid_auth" : "not_authed");
  switch (method) {
    case "auth.test":
      return ok({
        url: "https://fake.slack.com/",
        team: "Fake Team",
        user: "roundtable",
        team_id: fake.teamId,
        user_id: fake.botUserId,
        bot_id: fake.botId,
      });
    case "chat.postMessage":
      return postMessage(fake, params);
    case "assistant.threads.setStatus": {
      // Recorded in `calls`; Slack takes it only in an assistant thread (the app's DM, in a thread).
      const channel = text(params, "channel_id");
      if (!channel || !text(params, "thread_ts") || typeof params.status !== "string")
        return refuse("invalid_arguments");
      if (!channel.startsWith("D")) return refuse("invalid_thread");
      return ok();
    }
    case "assistant.threads.setSuggestedPrompts": {
      // Agent view: prompts for a DM's Messages tab (no thread needed), at most four.
      const channel = text(params, "channel_id");
      const prompts = typeof params.prompts === "string" ? (JSON.parse(params.prompts) as unknown) : params.prompts;
      if (!channel || !Array.isArray(prompts) || prompts.length === 0) return refuse("invalid_arguments");
      if (!channel.startsWith("D")) return refuse("channel_not_found");
      if (prompts.length > 4) return refuse("invalid_arguments");
      return ok();
    }
    case "chat.update":
      return updateMessage(fake, params);
    case "chat.delete": {
      const message = fake.messages.find(String(params.channel), String(params.ts));
      if (!message) return refuse("message_not_found");
      message.deleted = true;
      return ok({ channel: message.channel, ts: message.ts });
    }
    case "chat.postEphemeral": {
      const channel = text(params, "channel");
      const user = text(params, "user");
      if (!channel || !user) return refuse("invalid_arguments");
      const threadTs = text(params, "thread_ts");
      fake.ephemerals.push({
        channel,
        user,
        text: String(params.text ?? ""),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
      return ok({ message_ts: fake.messages.nextTs() });
    }
    case "chat.startStream":
      return startStream(fake, params);
    case "chat.appendStream":
    case "chat.stopStream": {
      const message = fake.messages.find(String(params.channel), String(params.ts));
      if (!message?.streaming) return refuse("message_not_in_streaming_state");
      const chunks = chunksOf(params);
      if (chunks === "invalid") return refuse("invalid_chunks");
      if (chunks.length > 0 && fake.refuseTaskChunks) return refuse("feature_not_enabled");
      message.chunks = [...(message.chunks ?? []), ...chunks];
      const more = text(params, "markdown_text") ?? "";
      message.text += more;
      message.history.push(message.text);
      message.updateCount += 1;
      if (method === "chat.stopStream") {
        message.streaming = false;
        const metadata = metadataOf(params);
        if (metadata) message.metadata = metadata;
        fake.echo(message);
      }
      return ok({ channel: message.channel, ts: message.ts });
    }
    case "files.getUploadURLExternal": {
      const filename = text(params, "filename");
      const length = Number(params.length);
      if (!filename || !Number.isInteger(length) || length <= 0) return refuse("invalid_arguments");
      const id = `F${String(fake.files.length + 1).padStart(6, "0")}`;
      fake.files.push({ id, filename, content: "" });
      return ok({ upload_url: `${fake.origin}/upload/${id}`, file_id: id });
    }
    case "files.completeUploadExternal": {
      const files = Array.isArray(params.files) ? (params.files as { id: string; title?: string }[]) : [];
      if (files.length === 0) return refuse("invalid_arguments");
      const channel = text(params, "channel_id");
      const threadTs = text(params, "thread_ts");
      const comment = text(params, "initial_comment");
      for (const entry of files) {
        const file = fake.files.find((each) => each.id === entry.id);
        if (!file) return refuse("file_not_found");
        if (entry.title) file.title = entry.title;
        if (channel) file.channel = channel;
        if (threadTs) file.thread_ts = threadTs;
        if (comment) file.initialComment = comment;
      }
      return ok({ files: files.map((entry) => ({ id: entry.id, title: entry.title ?? "" })) });
    }
    case "usergroups.list":
      return ok({
        usergroups: fake.usergroups.map((group) => ({
          id: group.id,
          handle: group.handle,
          name: group.handle,
          team_id: fake.teamId,
        })),
      });
    case "usergroups.users.list": {
      const group = fake.usergroups.find((each) => each.id === params.usergroup);
      return group ? ok({ users: group.users }) : refuse("no_such_subteam");
    }
    case "conversations.open": {
      // The app's DM with one person: the same `D…` channel every time.
      const user = fake.users.find((each) => each.id === params.users);
      if (!user || user.isBot) return refuse(user ? "cannot_dm_bot" : "user_not_found");
      return ok({ channel: { id: `D${user.id}` } });
    }
    case "users.info": {
      const user = fake.users.find((each) => each.id === params.user);
      if (!user) return refuse("user_not_found");
      return ok({
        user: {
          id: user.id,
          name: user.name,
          real_name: user.realName ?? user.name,
          is_bot: user.isBot ?? false,
          profile: { display_name: user.displayName ?? "", real_name: user.realName ?? user.name },
        },
      });
    }
    case "conversations.replies": {
      const channel = String(params.channel);
      const ts = String(params.ts);
      const limit = Number(params.limit ?? 100);
      const thread = fake.messages.list(channel, ts);
      if (thread.length === 0) return refuse("thread_not_found");
      // Oldest first; `oldest` leaves out earlier replies (the root is always there); pages of
      // `limit` with a cursor.
      const all = thread.filter((message) => message.ts === ts || after(message, params));
      const start = Number(text(params, "cursor") ?? 0);
      const messages = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return ok({
        messages: messages.map((message) => shown(message, params)),
        has_more: more,
        ...(more ? { response_metadata: { next_cursor: String(start + limit) } } : {}),
      });
    }
    case "conversations.history": {
      const channel = text(params, "channel");
      if (!channel) return refuse("channel_not_found");
      const limit = Number(params.limit ?? 100);
      // Newest first, as Slack answers.
      const messages = fake.messages
        .list(channel)
        .filter((message) => after(message, params))
        .reverse()
        .slice(0, limit);
      return ok({ messages: messages.map((message) => shown(message, params)), has_more: false });
    }
    default:
      return refuse("unknown_method");
  }
}

/** Posted after the `oldest` ts (if given). */
function after(message: SlackStoredMessage, params: Record<string, unknown>): boolean {
  const oldest = text(params, "oldest");
  return oldest === undefined || Number(message.ts) > Number(oldest);
}

/** A message as the history methods show it: metadata only with `include_all_metadata`. */
function shown(message: SlackStoredMessage, params: Record<string, unknown>): Record<string, unknown> {
  const { metadata, ...rest } = message;
  const withMetadata = params.include_all_metadata === true || params.include_all_metadata === "true";
  return { ...rest, type: "message", ...(withMetadata && metadata ? { metadata } : {}) };
}

/** `metadata: { event_type, event_payload }` as Slack takes it, or undefined. */
function metadataOf(params: Record<string, unknown>): SlackStoredMessage["metadata"] | undefined {
  const value = params.metadata as { event_type?: unknown; event_payload?: unknown } | undefined;
  if (typeof value?.event_type !== "string" || typeof value.event_payload !== "object" || !value.event_payload)
    return undefined;
  return { event_type: value.event_type, event_payload: value.event_payload as Record<string, unknown> };
}

function postMessage(fake: FakeSlack, params: Record<string, unknown>): WebApiAnswer {
  const channel = text(params, "channel");
  const body = String(params.text ?? "");
  const blocks = Array.isArray(params.blocks) ? params.blocks : undefined;
  if (!channel) return refuse("channel_not_found");
  if (body === "" && !blocks) return refuse("no_text");
  if (body.length > 40_000) return refuse("msg_too_long");
  const username = text(params, "username");
  const iconUrl = text(params, "icon_url");
  if ((username || iconUrl) && !fake.scopes.includes("chat:write.customize")) return refuse("missing_scope");
  const threadTs = text(params, "thread_ts");
  if (threadTs && !fake.messages.find(channel, threadTs)) return refuse("thread_not_found");
  if (params.metadata !== undefined && !metadataOf(params)) return refuse("invalid_metadata_format");
  const metadata = metadataOf(params);
  const message = fake.messages.add({
    ...(metadata ? { metadata } : {}),
    channel,
    text: body,
    user: fake.botUserId,
    bot_id: fake.botId,
    ...(threadTs ? { thread_ts: threadTs } : {}),
    ...(blocks ? { blocks } : {}),
    ...(username ? { username } : {}),
    ...(iconUrl ? { icon_url: iconUrl } : {}),
  });
  fake.echo(message);
  return ok({ channel, ts: message.ts, message: { ...message, type: "message" } });
}

function updateMessage(fake: FakeSlack, params: Record<string, unknown>): WebApiAnswer {
  const message = fake.messages.find(String(params.channel), String(params.ts));
  if (!message || message.deleted) return refuse("message_not_found");
  if (message.bot_id !== fake.botId) return refuse("cant_update_message");
  const body = String(params.text ?? "");
  if (body.length > 40_000) return refuse("msg_too_long");
  message.text = body;
  message.blocks = Array.isArray(params.blocks) ? params.blocks : [];
  // Metadata stays unless the update carries new metadata.
  const metadata = metadataOf(params);
  if (metadata) message.metadata = metadata;
  message.history.push(body);
  message.updateCount += 1;
  return ok({ channel: message.channel, ts: message.ts, text: body });
}

/** A stream call's `chunks` (a JSON string when form-encoded); task updates need id, title and a known status. */
function chunksOf(params: Record<string, unknown>): Record<string, unknown>[] | "invalid" {
  const raw = typeof params.chunks === "string" ? (JSON.parse(params.chunks) as unknown) : params.chunks;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return "invalid";
  const statuses = ["pending", "in_progress", "complete", "error"];
  for (const chunk of raw as Record<string, unknown>[]) {
    if (chunk.type === "task_update" && (!chunk.id || !chunk.title || !statuses.includes(String(chunk.status))))
      return "invalid";
  }
  return raw as Record<string, unknown>[];
}

function startStream(fake: FakeSlack, params: Record<string, unknown>): WebApiAnswer {
  const channel = text(params, "channel");
  const threadTs = text(params, "thread_ts");
  if (!channel || !threadTs) return refuse("invalid_arguments");
  const chunks = chunksOf(params);
  if (chunks === "invalid") return refuse("invalid_chunks");
  if (chunks.length > 0 && fake.refuseTaskChunks) return refuse("feature_not_enabled");
  if (chunks.length === 0 && !text(params, "markdown_text")) return refuse("invalid_arguments");
  const message = fake.messages.add({
    channel,
    text: text(params, "markdown_text") ?? "",
    user: fake.botUserId,
    bot_id: fake.botId,
    thread_ts: threadTs,
    streaming: true,
    ...(chunks.length === 0 ? {} : { chunks }),
  });
  return ok({ channel, ts: message.ts });
}
