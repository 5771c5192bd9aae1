import { Bot } from "grammy";
import type { InlineKeyboardMarkup, Update, UserFromGetMe } from "grammy/types";
import type { Logger } from "../../src/log/logger.js";
import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelClock,
  type ChannelPrimitives,
  chatCommands,
  type ChatRef,
  type DirectChatChannel,
  type InboundSink,
  type MessageLinks,
  type OutboundText,
  type SendPartOptions,
  type SingletonLease,
  type SingletonLock,
  type StreamMode,
  systemClock,
  type WebhookChannel,
  type WebhookRoute,
  type WorkingStatusChannel,
} from "../../src/world/channel-adapter.js";
import { AdminRoles } from "./admin-roles.js";
import {
  type BotHandle,
  TelegramOutbound,
  createApi,
  isPrivateChat,
  isRefusal,
  isUnreachableChat,
  toPlatformError,
} from "./api.js";
import { botApiFetch } from "./bot-api-fetch.js";
import { EditThrottle } from "./edit-throttle.js";
import { type MentionDirectory, emptyMentionDirectory } from "./mentions.js";
import { telegramMessageLink } from "./message-link.js";
import type { TelegramAdapterOptions } from "./options.js";
import { dispatchUpdate } from "./dispatch-update.js";
import { InputPrompts } from "./input-prompts.js";
import { draftSurface } from "./draft-surface.js";
import { telegramAttachments } from "./file-attachments.js";
import { UpdatePoller } from "./polling.js";
import {
  type TelegramPart,
  cardArgumentsFile,
  htmlToPlain,
  renderApprovalCard,
  renderApprovalOutcome,
  renderText,
  stopKeyboard,
  telegramMessageLimit,
} from "./render.js";
import { withTelegramMentions } from "./render-mentions.js";
import { retryTransformer } from "./retry-transformer.js";
import { sendTelegramFile } from "./send-file.js";
import { webhookSecretFor } from "./verify.js";
import { createWebhookRoute, telegramWebhookPath } from "./webhook-route.js";

const allowedUpdates = ["message", "callback_query"] as const;

/** The budget of changes one bot has in one chat. */
function paceKeyOf(bot: BotHandle, chat: ChatRef): string {
  return `${bot.key}:${chat.channel}`;
}

/**
 * Telegram through grammY. Long polling by default, a webhook on the service's port when
 * `webhookUrl` is set. Only the main bot's updates are read; agent bots only send.
 */
export class TelegramAdapter
  implements
    ChannelAdapter,
    ChannelPrimitives<TelegramPart>,
    DirectChatChannel,
    WebhookChannel,
    MessageLinks,
    WorkingStatusChannel
{
  readonly id = "telegram";
  readonly platform = "telegram" as const;
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: telegramMessageLimit,
    canEdit: true,
    identifiesClickers: true,
    chatsNameTheirWorld: false,
  };
  private readonly bot: Bot;
  private readonly main: BotHandle;
  private readonly agentBots = new Map<string, BotHandle>();
  private readonly logger: Logger;
  private readonly clock: ChannelClock;
  private readonly outbound: TelegramOutbound;
  /** When each bot last changed something in each chat (`showWorking` waits for room). */
  private readonly changes: EditThrottle;
  private readonly draftsUnsupported = new Set<string>();
  private readonly webhookSecret: string;
  private readonly adminRoles: AdminRoles;
  private readonly prompts: InputPrompts;
  private directory: MentionDirectory = emptyMentionDirectory();
  private poller: UpdatePoller | undefined;
  private lockStop: AbortController | undefined;
  private holding: Promise<void> | undefined;
  /** Another process holds the polling lock: this one is ready and waits to take over. */
  private waitingForLock = false;
  private sink: InboundSink | undefined;
  private webhookConnected = false;
  private route: WebhookRoute | undefined;

  constructor(private readonly options: TelegramAdapterOptions) {
    this.logger = options.logger.child({ platform: "telegram" });
    this.clock = options.clock ?? systemClock;
    const transformer = retryTransformer({
      clock: this.clock,
      logger: this.logger,
      maxDelaySeconds: options.retry?.maxDelaySeconds ?? 60,
      maxRetryAttempts: options.retry?.maxRetryAttempts ?? 5,
    });
    const apiRoot = options.apiRoot?.replace(/\/+$/, "") || undefined;
    this.bot = new Bot(options.token, {
      client: { fetch: botApiFetch(), ...(apiRoot === undefined ? {} : { apiRoot }) },
    });
    this.bot.api.config.use(transformer);
    this.bot.use(async (context) => this.dispatch(context.update));
    this.main = { api: this.bot.api, key: "main" };
    for (const { agent, token } of options.agentBots ?? []) {
      this.agentBots.set(agent, {
        api: createApi(token, apiRoot, [transformer]),
        key: `agent:${agent}`,
        agent,
      });
    }
    this.outbound = new TelegramOutbound(this.logger, options.linkPreviews);
    this.changes = new EditThrottle(this.clock);
    this.webhookSecret = webhookSecretFor(options.token, options.webhookSecret);
    this.adminRoles = new AdminRoles(this.bot.api, this.clock, this.logger);
    this.prompts = new InputPrompts(this.logger);
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    const webhook = this.options.webhookUrl !== undefined && this.options.webhookUrl !== "";
    // Long polling needs the webhook cleared; that is asked beside getMe, not after it.
    const cleared = webhook ? undefined : this.clearWebhook();
    // Awaited in receiveUpdates; a failure while getMe is pending is not an unhandled rejection.
    cleared?.catch(() => undefined);
    const me = await this.identify(this.main, "main bot");
    this.bot.botInfo = me;
    this.main.key = String(me.id);
    if (!me.can_read_all_group_messages) {
      this.logger.warn(
        { bot: me.username },
        `privacy mode is on for @${me.username}: in groups it only sees commands, replies to it and mentions of it. ` +
          "To let it read every group message: in @BotFather send /setprivacy, choose the bot, then Disable " +
          "(and remove and re-add the bot to each group), or make the bot an admin of the group.",
      );
    }
    await Promise.all([...this.agentBots.values()].map((handle) => this.identifyAgentBot(handle)));
    this.directory = this.buildDirectory(me.username);
    // The commands menu (never fails the start) is registered while the updates are set up:
    // one round trip to Telegram fewer before the first poll.
    const commands = this.registerCommands();
    try {
      await this.receiveUpdates(me, cleared);
    } finally {
      await commands;
    }
  }

  /** Webhook, or long polling (where the polling lock is held, when there is one). */
  private async receiveUpdates(me: UserFromGetMe, cleared: Promise<void> | undefined): Promise<void> {
    if (cleared === undefined) {
      await this.setWebhook(this.options.webhookUrl ?? "");
      return;
    }
    await cleared;
    const lock = this.options.pollingLock;
    if (lock) {
      this.lockStop = new AbortController();
      this.holding = this.pollWhileHolding(lock, `telegram:${me.id}`, me.username, this.lockStop.signal);
      return;
    }
    this.startPoller(me.username);
  }

  private async clearWebhook(): Promise<void> {
    try {
      await this.bot.api.deleteWebhook({ drop_pending_updates: false });
    } catch (error) {
      throw toPlatformError(error, "deleteWebhook");
    }
  }

  private startPoller(username: string): void {
    this.poller = new UpdatePoller({
      api: this.bot.api,
      clock: this.clock,
      logger: this.logger,
      timeoutSeconds: this.options.pollingTimeoutSeconds ?? 30,
      maxDeliveryAttempts: this.options.maxDeliveryAttempts ?? 5,
      allowedUpdates,
      handle: (update) => this.bot.handleUpdate(update),
    });
    this.poller.start();
    this.logger.info({ bot: username }, "telegram long polling started");
  }

  /** Polls only while this process holds the bot's lock; waits (and is ready) while another does. */
  private async pollWhileHolding(lock: SingletonLock, name: string, username: string, stop: AbortSignal) {
    while (!stop.aborted) {
      this.waitingForLock = true;
      let lease: SingletonLease;
      try {
        lease = await lock.acquire(name, stop);
      } catch {
        return; // stopped while waiting
      } finally {
        this.waitingForLock = false;
      }
      this.startPoller(username);
      const done = AbortSignal.any([lease.lost, stop]);
      if (!done.aborted) await new Promise((resolve) => done.addEventListener("abort", resolve, { once: true }));
      if (lease.lost.aborted && !stop.aborted)
        this.logger.warn({ bot: username }, "telegram polling lock lost: polling paused");
      await this.poller?.stop();
      this.poller = undefined;
      await lease.release();
    }
  }

  async stop(): Promise<void> {
    this.lockStop?.abort();
    await this.holding;
    await this.poller?.stop();
    this.poller = undefined;
    this.webhookConnected = false;
    this.sink = undefined;
  }

  isConnected(): boolean {
    return this.webhookConnected || this.waitingForLock || (this.poller?.isConnected() ?? false);
  }

  webhookRoutes(): WebhookRoute[] {
    if (this.options.webhookUrl === undefined || this.options.webhookUrl === "") return [];
    this.route ??= createWebhookRoute({
      bot: this.bot,
      secret: this.webhookSecret,
      logger: this.logger,
      isReady: () => this.sink !== undefined && this.bot.isInited(),
    });
    return [this.route];
  }

  // The delivery primitives (docs/architecture.md, "Delivery"): one Telegram message each.

  /** `message` as Telegram messages: HTML, split under the limit, the author's bold name where it needs one. */
  async renderParts(chat: ChatRef, message: OutboundText): Promise<TelegramPart[]> {
    const ownBot = (agent: string) => this.agentBots.get(agent)?.me?.username;
    const markdown = withTelegramMentions(message.text, message.mentions, ownBot);
    return renderText(markdown, this.identityFor(chat, message.author).name);
  }

  samePart(left: TelegramPart, right: TelegramPart): boolean {
    return left.html === right.html;
  }

  /** Telegram carries no idempotency key: `key` is not sent (the world records ids between parts). */
  async sendPart(chat: ChatRef, author: Author, part: TelegramPart, options: SendPartOptions = {}): Promise<string> {
    const { bot } = this.identityFor(chat, author);
    const keyboard = options.live ? this.liveKeyboard(bot, author) : undefined;
    this.noteChange(bot, chat);
    const id = await this.outbound.send(bot, chat, part, {
      ...(options.replyTo === undefined ? {} : { replyTo: options.replyTo }),
      ...(keyboard === undefined ? {} : { keyboard }),
    });
    return String(id);
  }

  /** Settled parts carry no buttons: an edit without `live` takes the Stop button off. */
  async editPart(
    chat: ChatRef,
    author: Author,
    id: string,
    part: TelegramPart,
    options: { live?: boolean } = {},
  ): Promise<"edited" | "gone"> {
    const { bot } = this.identityFor(chat, author);
    const keyboard = options.live ? this.liveKeyboard(bot, author) : undefined;
    this.noteChange(bot, chat);
    const messageId = Number(id);
    try {
      if (!Number.isInteger(messageId)) return "gone";
      await this.outbound.edit(bot, chat, messageId, part, keyboard);
      return "edited";
    } catch (error) {
      if (!isRefusal(error instanceof Error ? error.cause : undefined, /message to edit not found/i)) throw error;
      this.logger.warn({ messageId }, "a stored part of a message is gone; posting it again");
      return "gone";
    }
  }

  async deletePart(chat: ChatRef, author: Author, id: string): Promise<void> {
    const messageId = Number(id);
    if (Number.isInteger(messageId)) await this.outbound.delete(this.identityFor(chat, author).bot, chat, messageId);
  }

  /** A file as a photo or document (`send-file.ts`) from the bot that posts `author`'s parts, named as they are. */
  readonly sendFile: NonNullable<ChannelPrimitives["sendFile"]> = (chat, author, file, options) => {
    const { bot, name } = this.identityFor(chat, author);
    return sendTelegramFile(bot.api, chat, name === undefined ? { ...author, kind: "bot" } : author, file, options);
  };

  /**
   * Cards always come from the main bot: its updates are the ones read, presses included.
   * Arguments too long for the card follow as a document replying to it (`attach`).
   */
  async sendCard(chat: ChatRef, card: ApprovalCard): Promise<{ id: string; attach?: () => Promise<void> }> {
    const { html, keyboard } = renderApprovalCard(card);
    this.noteChange(this.main, chat);
    const id = String(await this.outbound.send(this.main, chat, { html, plain: htmlToPlain(html) }, { keyboard }));
    const file = cardArgumentsFile(card);
    if (!file) return { id };
    const caption = `Arguments of ${card.tool}, id ${card.shortId}, in full`;
    return { id, attach: () => this.outbound.sendDocument(this.main, chat, file, { replyTo: id, caption }) };
  }

  /** A pending card drawn again (a quorum's progress, an escalation), its buttons kept. */
  async redrawCard(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    const { html, keyboard } = renderApprovalCard(card);
    const messageId = Number(id);
    try {
      // Programming error: a card's stored id is the message id this adapter returned.
      if (!Number.isInteger(messageId)) throw new Error(`no card message id in ${JSON.stringify(id)}`);
      await this.outbound.edit(this.main, chat, messageId, { html, plain: htmlToPlain(html) }, keyboard);
      return "edited";
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (Number.isInteger(messageId) && !isRefusal(cause, /message to edit not found|message can't be edited/i)) {
        throw error;
      }
      this.logger.warn({ err: error, approvalId: card.approvalId }, "approval card could not be redrawn");
      return "gone";
    }
  }

  async editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    const messageId = Number(id);
    try {
      // Programming error: a card's stored id is the message id this adapter returned.
      if (!Number.isInteger(messageId)) throw new Error(`no card message id in ${JSON.stringify(id)}`);
      await this.outbound.edit(this.main, chat, messageId, await this.renderOutcome(chat, outcome));
      return "edited";
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (Number.isInteger(messageId) && !isRefusal(cause, /message to edit not found|message can't be edited/i)) {
        throw error;
      }
      this.logger.warn(
        { err: error, approvalId: outcome.approvalId },
        "approval card could not be edited; posting the outcome",
      );
      return "gone";
    }
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<TelegramPart> {
    const html = renderApprovalOutcome(outcome);
    return { html, plain: htmlToPlain(html) };
  }

  /**
   * Edits, no more than one change per bot and chat per interval (every stream in the chat
   * shares it); in a private chat the part being written is a native draft
   * (`sendMessageDraft`) while the server offers them.
   */
  streamMode(chat: ChatRef, author: Author): StreamMode<TelegramPart> {
    const { bot } = this.identityFor(chat, author);
    const useDrafts = isPrivateChat(chat) && (this.options.drafts ?? true) && !this.draftsUnsupported.has(bot.key);
    return {
      kind: "edit",
      intervalMs: this.editIntervalMs(chat),
      paceKey: paceKeyOf(bot, chat),
      clock: this.clock,
      ...(this.liveKeyboard(bot, author) === undefined ? {} : { liveControls: true }),
      ...(useDrafts
        ? {
            draft: draftSurface(this.outbound, bot, chat, {
              showing: () => this.noteChange(bot, chat),
              unsupported: () => this.draftsUnsupported.add(bot.key),
            }),
          }
        : {}),
    };
  }

  /** Presses are read from the main bot only: the Stop button rides on its messages alone. */
  private liveKeyboard(bot: BotHandle, author: Author): InlineKeyboardMarkup | undefined {
    return author.kind === "agent" && bot === this.main ? stopKeyboard(author.name) : undefined;
  }

  /** A change in the chat, for `showWorking` (which never spends the chat's budget itself). */
  private noteChange(bot: BotHandle, chat: ChatRef): void {
    this.changes.record(paceKeyOf(bot, chat));
  }

  /** `['admin']` for the chat's administrators: `admins` in member and approver lists. */
  rolesOf(chat: ChatRef, userId: string): Promise<string[]> {
    return this.adminRoles.rolesOf(chat, userId);
  }

  get workingRenewMs(): number {
    return this.options.typingRenewMs ?? 4000;
  }

  /**
   * `typing` through the bot that posts for the agent (its own bot in groups). Sent only when
   * the chat's edit budget has room, and not counted in it: a status never holds back a post.
   */
  async showWorking(chat: ChatRef, author: Author): Promise<void> {
    const { bot } = this.identityFor(chat, author);
    if (this.changes.waitMs(paceKeyOf(bot, chat), this.editIntervalMs(chat)) > 0) return;
    await this.outbound.typing(bot, chat);
  }

  /** Telegram ends `typing` by itself (at the bot's next message or after five seconds). */
  async clearWorking(): Promise<void> {}

  private editIntervalMs(chat: ChatRef): number {
    return isPrivateChat(chat)
      ? (this.options.throttle?.privateIntervalMs ?? 1000)
      : (this.options.throttle?.groupIntervalMs ?? 3000);
  }

  /**
   * Which bot posts for `author` in `chat`, and whether the text needs the author's bold name.
   * An agent with its own bot posts as that bot in groups; in a private chat (which belongs to
   * the main bot) and without its own bot it posts through the main bot under its name.
   */
  private identityFor(chat: ChatRef, author: Author): { bot: BotHandle; name?: string } {
    if (author.kind === "system") return { bot: this.main };
    if (author.kind === "agent") {
      const own = this.agentBots.get(author.name) ?? this.agentBots.get(author.id);
      if (own?.me && !isPrivateChat(chat)) return { bot: own };
    }
    return { bot: this.main, name: author.displayName ?? author.name };
  }

  /** Links to messages exist in supergroups (and their topics); elsewhere there are none. */
  /** A person's private chat with the bot: its id is theirs (a post there is refused until they started the bot). */
  async openDirectChat(userId: string): Promise<ChatRef> {
    return { platform: "telegram", channel: userId };
  }

  cannotReach(error: unknown): boolean {
    return isUnreachableChat(error);
  }

  messageLink(chat: ChatRef, platformMessageId: string): string | undefined {
    return telegramMessageLink(chat, platformMessageId);
  }

  /** The chat commands in the bot's menu (`setMyCommands`); a refusal is logged, not fatal. */
  private async registerCommands(): Promise<void> {
    try {
      await this.bot.api.setMyCommands(
        chatCommands.map((command) => ({ command: command.name, description: command.description })),
      );
    } catch (error) {
      this.logger.warn({ err: toPlatformError(error, "setMyCommands") }, "could not register the chat commands menu");
    }
  }

  private async identify(handle: BotHandle, what: string) {
    try {
      return await handle.api.getMe();
    } catch (error) {
      throw toPlatformError(error, `getMe (${what})`);
    }
  }

  private async identifyAgentBot(handle: BotHandle): Promise<void> {
    try {
      handle.me = await this.identify(handle, `bot of agent ${handle.agent}`);
      handle.key = String(handle.me.id);
      this.logger.info({ agent: handle.agent, bot: handle.me.username }, "agent posts as its own telegram bot");
    } catch (error) {
      this.logger.error(
        { err: error, agent: handle.agent },
        "agent bot token refused; the agent posts through the main bot under its name",
      );
    }
  }

  private buildDirectory(mainUsername: string): MentionDirectory {
    const agentBotsByUsername = new Map<string, string>();
    const agentBotsById = new Map<number, string>();
    for (const handle of this.agentBots.values()) {
      if (!handle.me || handle.agent === undefined) continue;
      agentBotsByUsername.set(handle.me.username.toLowerCase(), handle.agent);
      agentBotsById.set(handle.me.id, handle.agent);
    }
    const agentNames = new Map((this.options.agentNames ?? []).map((name) => [name.toLowerCase(), name] as const));
    return {
      mainBotUsername: mainUsername,
      mainBotId: Number(this.main.key),
      agentBotsByUsername,
      agentBotsById,
      agentNames,
    };
  }

  private async setWebhook(webhookUrl: string): Promise<void> {
    const url = new URL(webhookUrl);
    if (url.pathname === "/" || url.pathname === "") url.pathname = telegramWebhookPath;
    try {
      await this.bot.api.setWebhook(url.toString(), {
        secret_token: this.webhookSecret,
        allowed_updates: [...allowedUpdates],
        drop_pending_updates: false,
      });
    } catch (error) {
      throw toPlatformError(error, "setWebhook");
    }
    this.webhookConnected = true;
    this.logger.info({ url: url.toString() }, "telegram webhook set");
  }

  /** One update, from polling or the webhook. Only a failure of the world itself is thrown. */
  private async dispatch(update: Update): Promise<void> {
    const sink = this.sink;
    // Programming error: polling and the webhook route start only after the sink is set.
    if (!sink) throw new Error("telegram update before start");
    await dispatchUpdate(update, {
      sink,
      directory: this.directory,
      logger: this.logger,
      adminRoles: this.adminRoles,
      outbound: this.outbound,
      main: this.main,
      prompts: this.prompts,
      attachmentsOf: (files) => telegramAttachments(this.bot.api, this.options.token, this.options.apiRoot, files),
    });
  }
}
