import type { webApi } from "@slack/bolt";
import { NetworkError, PlatformApiError, RoundtableError } from "../../src/errors/roundtable-error.js";
import { type ChatRef, earliestPostTime } from "../../src/world/channel-adapter.js";
import { type Resend, type WebApiRetryOptions, withWebApiRetries } from "./web-api-retries.js";

type WebClient = webApi.WebClient;
/** A Block Kit block, as the Web API takes it. */
export type Block = Record<string, unknown>;

/** A `task_update` chunk of a native stream (a tool call's card: pending, in progress, complete, error). */
export type TaskChunk = Extract<
  NonNullable<webApi.ChatAppendStreamArguments["chunks"]>[number],
  { type: "task_update" }
>;

/** Under whose name a post appears: the agent's (needs `chat:write.customize`) or the app's. */
export interface PostIdentity {
  username?: string;
  iconUrl?: string;
}

/** The Slack error code of a refused call (`message_not_found`, `missing_scope`, …). */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

/** The Web API method a `what` names: `auth.test` of `auth.test (check SLACK_BOT_TOKEN)`. */
function methodOf(what: string): string {
  return what.split(" ")[0] ?? what;
}

/** A Web API failure as a RoundtableError: the API refused, was rate limited, or the network failed. */
export function toPlatformError(error: unknown, what: string): RoundtableError {
  if (error instanceof RoundtableError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === "slack_webapi_rate_limited_error") {
    const retryAfter = (error as { retryAfter?: number }).retryAfter;
    return new PlatformApiError(`slack ${what} rate limited`, {
      cause: error,
      method: methodOf(what),
      userMessage: "Slack is rate limiting the service.",
      retryAfterMs: (retryAfter ?? 1) * 1000,
    });
  }
  if (code === "slack_webapi_platform_error") {
    return new PlatformApiError(`slack ${what} refused: ${slackErrorCode(error) ?? "unknown error"}`, {
      cause: error,
      method: methodOf(what),
      userMessage: "Slack refused the message.",
    });
  }
  if (code === "slack_webapi_request_error" || code === "slack_webapi_http_error") {
    return new NetworkError(`slack ${what} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return new RoundtableError("internal", `slack ${what} failed: ${String(error)}`, { cause: error });
}

/** The Web API client of each workspace, and who the app's bot is there (`workspaces.ts`). */
export interface WorkspaceClients {
  clientOf(teamId: string | undefined): Promise<WebClient>;
  auth(teamId: string | undefined): Promise<{ botId: string }>;
}

/** The metadata event type of the service's posts; its payload's `key` names the post. */
export const postEventType = "roundtable_post";
/** How many of the newest messages a look-up for an earlier post reads. */
const lookupLimit = 50;
/** At most this many pages of a thread's replies are read by a look-up. */
const threadPages = 4;

/** A message as the history methods show it, with what a look-up reads. */
export interface RecentMessage {
  ts?: string;
  text?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: { key?: unknown } };
}

/** Where in a channel a post goes: the chat's thread, if it has one. */
function place(chat: ChatRef): { channel: string; thread_ts?: string } {
  return chat.thread === undefined ? { channel: chat.channel } : { channel: chat.channel, thread_ts: chat.thread };
}

/**
 * The adapter's outbound Web API calls, tried again as `web-api-retries.ts` says (a 429 after
 * its `Retry-After`, in the calling chat only; a 5xx or a cut connection only where sending
 * twice does no harm, or after looking for the post); every failure that reaches the caller is
 * a RoundtableError naming the call.
 */
export class SlackOutbound {
  constructor(
    /** The Web API client holding the token of the chat's workspace (`workspaces.ts`). */
    private readonly workspaces: WorkspaceClients,
    /** Whether a chat's posts may unfurl links (its world's `linkPreviews`). */
    private readonly linkPreviews: (chat: ChatRef) => boolean,
    private readonly retries: WebApiRetryOptions,
  ) {}

  /** Runs one Web API call with the chat's workspace's token, under the retry policy; its failure becomes a RoundtableError naming it. */
  private async call<T>(
    chat: ChatRef,
    what: string,
    run: (client: WebClient) => Promise<T>,
    resend: Resend<T> = "idempotent",
  ): Promise<T> {
    const once = async () => {
      try {
        return await run(await this.workspaces.clientOf(chat.workspace));
      } catch (error) {
        throw toPlatformError(error, what);
      }
    };
    return withWebApiRetries(what, once, resend, this.retries);
  }

  /**
   * Post a message. `key` (the post's key, the same on every run of its step) goes with it as
   * the message's metadata, so that {@link findPosted} can find it after a crash.
   */
  async post(
    chat: ChatRef,
    text: string,
    identity: PostIdentity = {},
    blocks?: Block[],
    key?: string,
  ): Promise<string> {
    // A post whose answer was lost is looked for by its key before it is sent again.
    const since = (earliestPostTime({ since: new Date() }) / 1000).toFixed(6);
    const resend: Resend<string> =
      key === undefined
        ? "never"
        : {
            recover: () =>
              this.findPosted(chat, key, since).catch((error: unknown) => {
                this.retries.logger.warn(
                  { err: error, key, channel: chat.channel },
                  "could not look for a post whose answer was lost; sending it again",
                );
                return undefined;
              }),
          };
    return this.call(
      chat,
      "chat.postMessage",
      async (client) => {
        const result = await client.chat.postMessage({
          ...place(chat),
          text,
          ...(blocks === undefined ? {} : { blocks: blocks as never }),
          ...(key === undefined ? {} : { metadata: { event_type: postEventType, event_payload: { key } } }),
          ...(identity.username === undefined ? {} : { username: identity.username }),
          ...(identity.iconUrl === undefined ? {} : { icon_url: identity.iconUrl }),
          // An unfurl is a fetch of the link by Slack: a prompt-injected answer could leak through it.
          unfurl_links: this.linkPreviews(chat),
          unfurl_media: this.linkPreviews(chat),
        });
        if (typeof result.ts !== "string")
          throw new PlatformApiError("slack chat.postMessage returned no ts", { method: "chat.postMessage" });
        return result.ts;
      },
      resend,
    );
  }

  /**
   * The ts of the app's message carrying `key` as its metadata, posted since `oldest` (a Slack
   * ts): the channel's newest messages, or the thread's replies, with their metadata.
   */
  async findPosted(chat: ChatRef, key: string, oldest: string): Promise<string | undefined> {
    const found = (await this.recentMessages(chat, oldest)).find(
      (message) => message.metadata?.event_type === postEventType && message.metadata.event_payload?.key === key,
    );
    return found?.ts;
  }

  /**
   * The app's bot id in the chat's workspace (`auth.test` asked once, or the installation's): a
   * step taken back after a crash may run before the adapter has started and identified itself.
   */
  async ownBotId(chat: ChatRef): Promise<string> {
    return (await this.workspaces.auth(chat.workspace)).botId;
  }

  /**
   * The chat's messages since `oldest`, with their metadata: the channel's 50 newest, or the
   * thread's replies (Slack answers those oldest first, so a few pages are read to reach the
   * newest).
   */
  async recentMessages(chat: ChatRef, oldest: string): Promise<RecentMessage[]> {
    const common = { channel: chat.channel, oldest, limit: lookupLimit, include_all_metadata: true };
    try {
      const client = await this.workspaces.clientOf(chat.workspace);
      if (chat.thread === undefined) {
        return ((await client.conversations.history(common)).messages ?? []) as RecentMessage[];
      }
      const messages: RecentMessage[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < threadPages; page += 1) {
        const result = await client.conversations.replies({
          ...common,
          ts: chat.thread,
          ...(cursor === undefined ? {} : { cursor }),
        });
        messages.push(...((result.messages ?? []) as RecentMessage[]));
        cursor = result.response_metadata?.next_cursor || undefined;
        if (!result.has_more || cursor === undefined) break;
      }
      return messages;
    } catch (error) {
      throw toPlatformError(error, chat.thread === undefined ? "conversations.history" : "conversations.replies");
    }
  }

  async update(chat: ChatRef, ts: string, text: string, blocks?: Block[]): Promise<void> {
    await this.call(chat, "chat.update", (client) =>
      client.chat.update({ channel: chat.channel, ts, text, blocks: (blocks ?? []) as never }),
    );
  }

  /** An assistant thread's status line ("alice is thinking…"); "" clears it (so does the app's next reply). */
  async setStatus(chat: ChatRef & { thread: string }, status: string): Promise<void> {
    await this.call(chat, "assistant.threads.setStatus", (client) =>
      client.assistant.threads.setStatus({ channel_id: chat.channel, thread_ts: chat.thread, status }),
    );
  }

  /** The prompts above the composer of the app's Messages tab (Agent view), for one DM. */
  async setSuggestedPrompts(chat: ChatRef, prompts: { title: string; message: string }[]): Promise<void> {
    await this.call(chat, "assistant.threads.setSuggestedPrompts", (client) =>
      client.assistant.threads.setSuggestedPrompts({ channel_id: chat.channel, prompts }),
    );
  }

  async delete(chat: ChatRef, ts: string): Promise<void> {
    await this.call(chat, "chat.delete", (client) => client.chat.delete({ channel: chat.channel, ts }));
  }

  /**
   * The app's DM channel with a person (`conversations.open`; the same channel every time), in
   * `workspace` (with `channels.slack.oauth` a person's workspace is not known: refused, so the
   * approver is skipped; docs/approvals.md).
   */
  async openDirect(user: string, workspace?: string): Promise<string> {
    const where: ChatRef = { platform: "slack", channel: "", ...(workspace === undefined ? {} : { workspace }) };
    const result = await this.call(where, "conversations.open", (client) => client.conversations.open({ users: user }));
    const id = result.channel?.id;
    if (typeof id !== "string")
      throw new PlatformApiError("slack conversations.open returned no channel", { method: "conversations.open" });
    return id;
  }

  /** Open a modal for the person who pressed a button (`views.open`, within 3 s of the press). */
  async openView(chat: ChatRef, triggerId: string, view: Record<string, unknown>): Promise<void> {
    // A trigger id is good once: never sent again.
    await this.call(
      chat,
      "views.open",
      (client) =>
        client.views.open({
          trigger_id: triggerId,
          view: view as unknown as Parameters<WebClient["views"]["open"]>[0]["view"],
        }),
      "never",
    );
  }

  async postEphemeral(chat: ChatRef, user: string, text: string): Promise<void> {
    await this.call(
      chat,
      "chat.postEphemeral",
      (client) => client.chat.postEphemeral({ ...place(chat), user, text }),
      "never",
    );
  }

  /** A text file in the chat (Slack shows it as a snippet), with a comment. */
  async uploadSnippet(chat: ChatRef, filename: string, content: string, comment: string): Promise<string> {
    return this.call(
      chat,
      "files.uploadV2",
      async (client) => {
        const result = await client.filesUploadV2({
          channel_id: chat.channel,
          ...(chat.thread === undefined ? {} : { thread_ts: chat.thread }),
          filename,
          title: filename,
          content,
          initial_comment: comment,
          snippet_type: "javascript",
        } as never);
        const files = (result as { files?: { files?: { id?: string }[] }[] }).files ?? [];
        return files[0]?.files?.[0]?.id ?? filename;
      },
      "never",
    );
  }

  /** Native streaming (`chat.startStream`): Slack shows it under the app's identity. */
  async startStream(
    chat: ChatRef,
    threadTs: string,
    text: string,
    recipient: { user?: string; team?: string },
  ): Promise<string> {
    return this.call(
      chat,
      "chat.startStream",
      async (client) => {
        const result = await client.chat.startStream({
          channel: chat.channel,
          thread_ts: threadTs,
          markdown_text: text,
          ...(recipient.user === undefined ? {} : { recipient_user_id: recipient.user }),
          ...(recipient.team === undefined ? {} : { recipient_team_id: recipient.team }),
        });
        if (typeof result.ts !== "string")
          throw new PlatformApiError("slack chat.startStream returned no ts", { method: "chat.startStream" });
        return result.ts;
      },
      "never",
    );
  }

  /** A stream that starts with chunks (a tool call's task card) instead of text. */
  async startChunkStream(
    chat: ChatRef,
    threadTs: string,
    chunks: TaskChunk[],
    recipient: { user?: string; team?: string },
  ): Promise<string> {
    return this.call(
      chat,
      "chat.startStream",
      async (client) => {
        const result = await client.chat.startStream({
          channel: chat.channel,
          thread_ts: threadTs,
          chunks,
          ...(recipient.user === undefined ? {} : { recipient_user_id: recipient.user }),
          ...(recipient.team === undefined ? {} : { recipient_team_id: recipient.team }),
        });
        if (typeof result.ts !== "string")
          throw new PlatformApiError("slack chat.startStream returned no ts", { method: "chat.startStream" });
        return result.ts;
      },
      "never",
    );
  }

  async appendChunks(chat: ChatRef, ts: string, chunks: TaskChunk[]): Promise<void> {
    await this.call(
      chat,
      "chat.appendStream",
      (client) => client.chat.appendStream({ channel: chat.channel, ts, chunks }),
      "never",
    );
  }

  async appendStream(chat: ChatRef, ts: string, text: string): Promise<void> {
    await this.call(
      chat,
      "chat.appendStream",
      (client) => client.chat.appendStream({ channel: chat.channel, ts, markdown_text: text }),
      "never",
    );
  }

  /** End a native stream; `key` goes with it as metadata (`chat.startStream` takes none). */
  async stopStream(chat: ChatRef, ts: string, text?: string, key?: string, chunks?: TaskChunk[]): Promise<void> {
    await this.call(
      chat,
      "chat.stopStream",
      (client) =>
        client.chat.stopStream({
          channel: chat.channel,
          ts,
          ...(text ? { markdown_text: text } : {}),
          ...(chunks === undefined ? {} : { chunks }),
          ...(key === undefined ? {} : { metadata: { event_type: postEventType, event_payload: { key } } }),
        }),
      "never",
    );
  }
}
