import { App, type ViewResponseAction, webApi } from "@slack/bolt";
import { ConfigError, PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelClock,
  type ChannelPrimitives,
  chatKey,
  type DirectChatChannel,
  type ChatRef,
  type InboundSink,
  type NativeStream,
  type NativeStreamSetup,
  type OutboundText,
  type PartKey,
  type PrivateReplyChannel,
  type ToolProgress,
  type ToolProgressChannel,
  type SendPartOptions,
  type StreamMode,
  systemClock,
  type UserRolesChannel,
  type WebhookChannel,
  type WebhookRoute,
  type WorkingActivity,
  type WorkingStatusChannel,
  workingText,
} from "../../src/world/channel-adapter.js";
import { type Block, SlackOutbound, slackErrorCode } from "./api.js";
import { suggestedPrompts } from "./agent-view.js";
import { SlackApprovalCards } from "./approval-cards.js";
import { boltLogger } from "./bolt-logger.js";
import { SlackHttpReceiver } from "./http-receiver.js";
import { LastPeople, type SlashCommand } from "./inbound-handler.js";
import { installedWorkspaces } from "./installed-app.js";
import { SlackNativeStream } from "./native-stream.js";
import type { SlackAdapterOptions } from "./options.js";
import { PostIdentities } from "./post-identity.js";
import { findEarlierPost, removeEarlierNativeStream } from "./post-once.js";
import { renderText, type SlackPart } from "./render.js";
import { sendSlackFile } from "./send-file.js";
import { SlackSocketReceiver } from "./socket-receiver.js";
import { SlackTaskChunks } from "./task-chunks.js";
import { stopBlocks } from "./stop-button.js";
import { SlackWorkspaceParts, type WorkspaceParts } from "./workspace-parts.js";
import { SingleWorkspace, type SlackWorkspaces } from "./workspaces.js";
import type { WebApiRetryOptions } from "./web-api-retries.js";

/**
 * Slack through Bolt. Socket Mode when an app token is set, else HTTP events and interactivity
 * at `/slack/events` on the service's port. One bot token, or "Add to Slack" (`oauth`): then
 * each workspace is answered with its own installation's token (`installed-app.ts`). An event is acknowledged (either way) only once the
 * world has stored its message, at most 2.5 s after it came, so that a crash before then makes
 * Slack deliver it again; agents post under their own name and icon when the app may
 * (`chat:write.customize`).
 */
export class SlackAdapter
  implements
    ChannelAdapter,
    ChannelPrimitives<SlackPart>,
    DirectChatChannel,
    PrivateReplyChannel,
    ToolProgressChannel,
    UserRolesChannel,
    WebhookChannel,
    WorkingStatusChannel
{
  readonly id = "slack";
  readonly platform = "slack" as const;
  readonly capabilities: ChannelCapabilities;
  private readonly app: App;
  private readonly receiver: SlackHttpReceiver | undefined;
  private readonly socket: SlackSocketReceiver | undefined;
  private readonly logger: Logger;
  private readonly clock: ChannelClock;
  private readonly outbound: SlackOutbound;
  private readonly retries: WebApiRetryOptions;
  private readonly workspaces: SlackWorkspaces;
  private readonly oauthRoutes: WebhookRoute[];
  private readonly people = new LastPeople();
  private readonly identities: PostIdentities;
  private readonly tasks: SlackTaskChunks;
  private readonly cards: SlackApprovalCards;
  private readonly inflight = new Set<Promise<unknown>>();
  /** Each workspace's names, groups and inbound handler; made at start. */
  private parts: SlackWorkspaceParts | undefined;
  private connected = false;

  constructor(private readonly options: SlackAdapterOptions) {
    this.logger = options.logger.child({ platform: "slack" });
    this.capabilities = {
      canEdit: true,
      identifiesClickers: true,
      chatsNameTheirWorld: false,
    };
    this.clock = options.clock ?? systemClock;
    const logger = boltLogger(this.logger);
    const apiUrl = options.apiUrl ? { slackApiUrl: options.apiUrl } : {};
    // Every workspace's calls are tried again by SlackOutbound (web-api-retries.ts), per chat:
    // the client's own retries paused every chat for one chat's 429 and sent posts twice. The
    // same options make the installed workspaces' clients (ours, Bolt's authorize, @slack/oauth).
    const clientOptions = {
      ...apiUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logger,
    };
    this.retries = { clock: this.clock, logger: this.logger, retries: options.retries ?? 5 };
    const installed = options.oauth ? installedWorkspaces(options.oauth, clientOptions, this.logger) : undefined;
    this.oauthRoutes = installed?.routes ?? [];
    // A workspace installed again (or removed) gets new parts, with its new token.
    installed?.installations.onChange((teamId) => this.parts?.forget(teamId));
    const auth = installed ? { authorize: installed.authorize } : { token: options.botToken };
    const common = { ...auth, logger, clientOptions, ignoreSelf: false, deferInitialization: true };
    if (options.appToken) {
      this.socket = new SlackSocketReceiver({
        appToken: options.appToken,
        logger: this.logger,
        slackLogger: logger,
        // Opening the socket (apps.connections.open) posts nothing: the client may retry it.
        clientOptions: {
          ...apiUrl,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          retryConfig: { retries: options.retries ?? 5, factor: 2, minTimeout: 500, maxTimeout: 30_000 },
        },
        track: (work) => this.track(work),
      });
      this.socket.client.on("connected", () => {
        this.connected = true;
      });
      this.socket.client.on("disconnected", () => {
        this.connected = false;
      });
      this.app = new App({ ...common, receiver: this.socket });
    } else {
      this.receiver = new SlackHttpReceiver({
        signingSecret: options.signingSecret ?? "",
        logger: this.logger,
        isReady: () => this.parts !== undefined,
        track: (work) => this.track(work),
      });
      this.app = new App({ ...common, receiver: this.receiver });
    }
    this.workspaces =
      installed?.workspaces ??
      new SingleWorkspace(
        this.app.client,
        new webApi.WebClient(options.botToken, clientOptions),
        options.botToken ?? "",
        this.logger,
        this.retries,
      );
    this.outbound = new SlackOutbound(this.workspaces, options.linkPreviews ?? (() => false), this.retries);
    this.identities = new PostIdentities(this.workspaces, options.agents ?? [], this.logger);
    this.tasks = new SlackTaskChunks({
      outbound: this.outbound,
      logger: this.logger,
      recipientOf: (chat) => this.recipientOf(chat),
    });
    this.cards = new SlackApprovalCards(this.outbound, this.logger);
    this.listen();
  }

  async start(sink: InboundSink): Promise<void> {
    if (!this.options.appToken && !this.options.signingSecret) {
      throw new ConfigError(
        "channels.slack needs signingSecret (SLACK_SIGNING_SECRET) for HTTP events, or appToken (SLACK_APP_TOKEN) for Socket Mode",
      );
    }
    // One token: who the app is, asked now (a wrong token fails the start). Installed: per workspace.
    const identity = this.workspaces.kind === "single" ? await this.workspaces.auth(undefined) : undefined;
    this.parts = new SlackWorkspaceParts({
      workspaces: this.workspaces,
      sink,
      outbound: this.outbound,
      people: this.people,
      clock: this.clock,
      logger: this.logger,
      approverGroups: this.options.approverGroups ?? [],
      replyIn: this.options.replyIn ?? "thread",
      threadDirectMessages: this.options.agentView === true,
      // Slack serves files from files.slack.com; another Web API (an emulator) serves its own.
      filesHost: this.options.apiUrl ? new URL(this.options.apiUrl).host : "files.slack.com",
      agentNames: new Map((this.options.agents ?? []).map((agent) => [agent.name.toLowerCase(), agent.name])),
    });
    await this.app.init();
    try {
      await this.app.start();
    } catch (error) {
      if (!this.socket) throw error;
      throw new PlatformApiError(
        `slack Socket Mode could not connect (check SLACK_APP_TOKEN, an app-level token with connections:write): ${slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error))}`,
        { cause: error, method: "apps.connections.open" },
      );
    }
    if (!this.socket) this.connected = true;
    this.logger.info(
      {
        mode: this.socket ? "socket" : "http",
        ...(identity ? { team: identity.teamId, botUser: identity.botUserId } : { install: "/slack/install" }),
      },
      this.socket ? "slack connected over Socket Mode" : "slack events expected at /slack/events",
    );
  }

  async stop(): Promise<void> {
    this.parts = undefined;
    try {
      await this.app.stop();
    } catch (error) {
      this.logger.warn({ err: error }, "slack did not stop cleanly");
    }
    this.connected = false;
    await this.idle();
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** Resolves when every event taken so far has been handled (tests, graceful stop). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  webhookRoutes(): WebhookRoute[] {
    return [...(this.receiver ? [this.receiver.route()] : []), ...this.oauthRoutes];
  }

  /** Slack keeps an assistant thread's status until it is cleared or the app replies. */
  readonly workingRenewMs = undefined;

  /** "alice is thinking…" in an assistant thread (a thread in the app's DM); other chats show nothing. */
  async showWorking(chat: ChatRef, author: Author, activity: WorkingActivity): Promise<void> {
    const thread = assistantThread(chat);
    if (thread) await this.outbound.setStatus(thread, workingText(author.displayName ?? author.name, activity));
  }

  async clearWorking(chat: ChatRef): Promise<void> {
    const thread = assistantThread(chat);
    if (thread) await this.outbound.setStatus(thread, "");
  }

  /** The app's DM with a person (an approval card routed to approvers' DMs). */
  async openDirectChat(userId: string): Promise<ChatRef> {
    return this.resolveChat({ platform: "slack", channel: await this.cards.openDirectChannel(userId) });
  }

  cannotReach(error: unknown): boolean {
    return this.cards.cannotReach(error);
  }

  /** A chat named by its channel id alone (a schedule's, a trigger's) in this app's workspace. */
  resolveChat(chat: ChatRef): ChatRef {
    const teamId = this.workspaces instanceof SingleWorkspace ? this.workspaces.identity?.teamId : undefined;
    return chat.workspace !== undefined || teamId === undefined ? chat : { ...chat, workspace: teamId };
  }

  /** With `stream: native`, a tool call as a task card in the thread (`task-chunks.ts`); else nothing. */
  async showToolProgress(chat: ChatRef, author: Author, progress: ToolProgress): Promise<void> {
    const thread = chat.thread;
    if (!this.streamsNatively(chat) || thread === undefined) return;
    // Tracked, so that idle() (tests, a graceful stop) waits for the card to settle.
    const shown = this.tasks.show({ ...chat, thread }, this.identities.displayNameOf(author), progress);
    this.track(shown);
    await shown;
  }

  async replyPrivately(chat: ChatRef, userId: string, text: string): Promise<void> {
    await this.outbound.postEphemeral(chat, userId, renderText(text)[0] ?? text);
  }

  async rolesOf(chat: ChatRef, userId: string): Promise<string[]> {
    return this.parts ? (await this.parts.of(chat.workspace)).groups.rolesOf(userId) : [];
  }

  async renderParts(chat: ChatRef, message: OutboundText): Promise<SlackPart[]> {
    const { identity, prefix } = await this.identities.of(chat, message.author);
    return renderText(message.text, prefix, undefined, message.mentions).map((text) => ({ text, identity }));
  }

  samePart(left: SlackPart, right: SlackPart): boolean {
    return left.text === right.text && JSON.stringify(left.blocks ?? []) === JSON.stringify(right.blocks ?? []);
  }

  /** Posted with the part's key as the message's metadata, so that {@link findPosted} finds it after a crash. */
  async sendPart(chat: ChatRef, author: Author, part: SlackPart, options: SendPartOptions = {}): Promise<string> {
    const blocks = this.blocksOf(author, part, options.live);
    return this.outbound.post(chat, part.text, part.identity, blocks, options.key?.key);
  }

  async editPart(chat: ChatRef, author: Author, id: string, part: SlackPart, options: { live?: boolean } = {}) {
    await this.outbound.update(chat, id, part.text, this.blocksOf(author, part, options.live));
    return "edited" as const;
  }

  async deletePart(chat: ChatRef, _author: Author, id: string): Promise<void> {
    try {
      await this.outbound.delete(chat, id);
    } catch (error) {
      if (slackErrorCode(error instanceof Error ? error.cause : undefined) !== "message_not_found") throw error;
    }
  }

  /** A file through `files.uploadV2` (`send-file.ts`): as the app, the agent's name leading its comment; returns the file's id. */
  readonly sendFile: NonNullable<ChannelPrimitives["sendFile"]> = async (chat, author, file, options) =>
    sendSlackFile(await this.workspaces.clientOf(chat.workspace), chat, author, file, options, this.retries);

  /**
   * The app's message carrying `key` as its metadata. In a thread that streams natively, the
   * answer's first part first removes the keyless native stream an earlier run left of it.
   */
  async findPosted(
    chat: ChatRef,
    author: Author,
    key: PartKey,
    _part?: SlackPart,
  ): Promise<{ id: string } | undefined> {
    if (this.streamsNatively(chat) && key.key.endsWith(":0")) {
      await removeEarlierNativeStream(this.outbound, this.logger, chat, {
        authorName: this.identities.displayNameOf(author),
        key,
      });
    }
    const id = await findEarlierPost(this.outbound, this.logger, chat, key);
    return id === undefined ? undefined : { id };
  }

  /** Cards and their outcomes as the app (`approval-cards.ts`). */
  sendCard(chat: ChatRef, card: ApprovalCard, key?: PartKey): Promise<{ id: string; attach?: () => Promise<void> }> {
    return this.cards.send(chat, card, key);
  }

  redrawCard(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    return this.cards.redraw(chat, id, card);
  }

  editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    return this.cards.edit(chat, id, outcome);
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<SlackPart> {
    return this.cards.renderOutcome(outcome);
  }

  /** Slack's own streams in a thread when `stream: native`; else the world edits, one change per interval. */
  streamMode(chat: ChatRef, author: Author): StreamMode<SlackPart> {
    const thread = chat.thread;
    if (this.streamsNatively(chat) && thread !== undefined) {
      return { kind: "native", open: (setup) => this.nativeStream({ ...chat, thread }, author, setup) };
    }
    const intervalMs = this.options.updateIntervalMs ?? 1000;
    // An agent's part being written carries a Stop button (see blocksOf).
    return { kind: "edit", intervalMs, liveControls: author.kind === "agent", clock: this.clock };
  }

  private streamsNatively(chat: ChatRef): boolean {
    return this.options.stream === "native" && chat.thread !== undefined;
  }

  private nativeStream(chat: ChatRef & { thread: string }, author: Author, setup: NativeStreamSetup): NativeStream {
    return new SlackNativeStream({
      ...setup,
      outbound: this.outbound,
      clock: this.clock,
      logger: this.logger.child({ chat: chat.channel }),
      chat,
      authorName: this.identities.displayNameOf(author),
      recipient: this.recipientOf(chat),
      intervalMs: this.options.updateIntervalMs ?? 1000,
    });
  }

  /** Who a native stream in `chat` is for: the last person who wrote there, in its workspace. */
  private recipientOf(chat: ChatRef): { user?: string; team?: string } {
    const recipient = this.people.in(chatKey(chat));
    const team = chat.workspace ?? this.resolveChat(chat).workspace;
    return {
      ...(team === undefined ? {} : { team }),
      ...(recipient === undefined ? {} : { user: recipient }),
    };
  }

  /** A part an agent is still writing carries a Stop button (when its text fits a section). */
  private blocksOf(author: Author, part: SlackPart, live = false): Block[] | undefined {
    const stop = live && author.kind === "agent" ? stopBlocks(part.text, author.name) : undefined;
    return stop ?? part.blocks;
  }

  private listen(): void {
    // Resolves when the work is done: an event or a press is answered (either way) only once the
    // world has stored it, so that a crash before then makes Slack deliver it again.
    // Each payload is handled by the parts of the workspace Bolt authorized it for.
    const handle = async (teamId: string | undefined, work: (parts: WorkspaceParts) => Promise<void>) => {
      const parts = this.parts;
      if (!parts) {
        this.logger.warn("slack payload before start or after stop; dropped");
        return;
      }
      const running = parts.of(teamId).then(work);
      this.track(running);
      await running.catch(() => undefined);
    };
    for (const event of ["message", "app_mention"] as const) {
      this.app.event(event, async ({ body, context }) => {
        const payload = body as unknown as Record<string, unknown>;
        await handle(context.teamId, (parts) => parts.handler.event(payload, context.retryNum));
      });
    }
    // Agent view: a person opened the app's Messages tab; its prompts name the world's agents.
    this.app.event("app_home_opened", async ({ event, context }) => {
      if (event.tab !== "messages" || this.options.agentView !== true) return;
      await handle(context.teamId, () => this.offerPrompts(context.teamId, event.channel));
    });
    // The app removed from a workspace: that workspace's token (and only that one) is deleted.
    this.app.event("app_uninstalled", async ({ context }) => this.uninstalled(context.teamId, "app_uninstalled"));
    this.app.event("tokens_revoked", async ({ event, context }) => {
      if ((event.tokens.bot ?? []).length > 0) await this.uninstalled(context.teamId, "tokens_revoked");
    });
    this.app.action({ type: "block_actions" }, async ({ ack, body, context }) => {
      const payload = body as unknown as Record<string, unknown>;
      await handle(context.teamId, (parts) => parts.handler.action(payload));
      await ack();
    });
    // A reason or edit modal (channels/slack/input-modals.ts): answered with the refusal of an edit that does not fit.
    this.app.view({ type: "view_submission" }, async ({ ack, body, context }) => {
      let answer: unknown;
      await handle(context.teamId, async (parts) => {
        answer = await parts.handler.submission(body as unknown as Record<string, unknown>);
      });
      if (answer === undefined) await ack();
      else await ack(answer as ViewResponseAction);
    });
    this.app.command("/roundtable", async ({ ack, command, context }) => {
      await ack();
      void handle(context.teamId, (parts) => parts.handler.command(command as SlashCommand));
    });
    this.app.error(async (error) => {
      this.logger.error({ err: error }, "slack event handler failed");
    });
  }

  /** Suggested prompts in a DM's Messages tab (best effort: a refusal is logged, never shown). */
  private async offerPrompts(teamId: string | undefined, channel: string): Promise<void> {
    const prompts = suggestedPrompts(this.options.agents ?? []);
    if (prompts.length === 0) return;
    try {
      const chat = { platform: "slack" as const, channel, ...(teamId === undefined ? {} : { workspace: teamId }) };
      await this.outbound.setSuggestedPrompts(chat, prompts);
    } catch (error) {
      this.logger.warn({ err: error, channel }, "slack suggested prompts not set");
    }
  }

  private async uninstalled(teamId: string | undefined, event: string): Promise<void> {
    if (teamId === undefined) return;
    const removed = await this.workspaces.forget(teamId);
    this.parts?.forget(teamId);
    if (removed) this.logger.info({ team: teamId, event }, "slack app removed from a workspace; its token is deleted");
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => this.logger.error({ err: error }, "slack event handling failed"));
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
  }
}

/** The chat as an assistant thread, where Slack shows a status: a thread of a DM with the app. */
function assistantThread(chat: ChatRef): (ChatRef & { thread: string }) | undefined {
  return chat.thread !== undefined && chat.channel.startsWith("D") ? { ...chat, thread: chat.thread } : undefined;
}
