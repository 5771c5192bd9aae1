import { Bot } from "grammy";
import type { InlineKeyboardMarkup, Update } from "grammy/types";
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
  PaceTable,
  type SendPartOptions,
  type StreamMode,
  systemClock,
  type WebhookChannel,
  type WebhookRoute,
  type WorkingStatusChannel,
} from "../../src/world/channel-adapter.js";
import { AdminRoles } from "./admin-roles.js";
import { TelegramApprovalCards } from "./approval-cards.js";
import { type BotHandle, TelegramOutbound, createApi, isPrivateChat, isRefusal, toPlatformError } from "./api.js";
import { botApiFetch } from "./bot-api-fetch.js";
import { type MentionDirectory, emptyMentionDirectory } from "./mentions.js";
import { telegramMessageLink } from "./message-link.js";
import type { TelegramAdapterOptions } from "./options.js";
import { dispatchUpdate } from "./dispatch-update.js";
import { InputPrompts } from "./input-prompts.js";
import { draftSurface } from "./draft-surface.js";
import { telegramAttachments } from "./file-attachments.js";
import { type TelegramPart, renderText, stopKeyboard } from "./render.js";
import { withTelegramMentions } from "./render-mentions.js";
import { retryTransformer } from "./retry-transformer.js";
import { sendTelegramFile } from "./send-file.js";
import { UpdateReceiver } from "./update-receiver.js";

/** The budget of changes one bot has in one chat. */
function paceKeyOf(bot: BotHandle, chat: ChatRef): string {
  return `${bot.key}:${chat.channel}`;
}

/**
 * Telegram through grammY. Long polling by default, a webhook on the service's port when
 * `webhookUrl` is set (`update-receiver.ts`). Only the main bot's updates are read; agent bots
 * only send.
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
  /** When each bot last changed something in each chat, every send counted (`showWorking` waits for room). */
  private readonly changes = new PaceTable();
  private readonly draftsUnsupported = new Set<string>();
  private readonly adminRoles: AdminRoles;
  private readonly prompts: InputPrompts;
  private readonly cards: TelegramApprovalCards;
  private readonly updates: UpdateReceiver;
  private directory: MentionDirectory = emptyMentionDirectory();
  private sink: InboundSink | undefined;

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
    this.updates = new UpdateReceiver({
      bot: this.bot,
      options,
      clock: this.clock,
      logger: this.logger,
      isReady: () => this.sink !== undefined && this.bot.isInited(),
    });
    this.adminRoles = new AdminRoles(this.bot.api, this.clock, this.logger);
    this.prompts = new InputPrompts(this.logger);
    this.cards = new TelegramApprovalCards({
      main: this.main,
      outbound: this.outbound,
      logger: this.logger,
      noteChange: (bot, chat) => this.noteChange(bot, chat),
    });
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    // Long polling needs the webhook cleared; that is asked beside getMe, not after it.
    const cleared = this.updates.clearForPolling();
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
      await this.updates.receive(me, cleared);
    } finally {
      await commands;
    }
  }

  async stop(): Promise<void> {
    await this.updates.stop();
    this.sink = undefined;
  }

  isConnected(): boolean {
    return this.updates.isConnected();
  }

  webhookRoutes(): WebhookRoute[] {
    return this.updates.webhookRoutes();
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

  /** Cards and their outcomes (`approval-cards.ts`), always from the main bot. */
  sendCard(chat: ChatRef, card: ApprovalCard): Promise<{ id: string; attach?: () => Promise<void> }> {
    return this.cards.send(chat, card);
  }

  redrawCard(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    return this.cards.redraw(chat, id, card);
  }

  editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    return this.cards.edit(chat, id, outcome);
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<TelegramPart> {
    return this.cards.renderOutcome(outcome);
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
    this.changes.mark(paceKeyOf(bot, chat), this.clock.now());
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
    if (this.changes.waitMs(paceKeyOf(bot, chat), this.editIntervalMs(chat), this.clock.now()) > 0) return;
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

  async openDirectChat(userId: string): Promise<ChatRef> {
    return this.cards.openDirectChat(userId);
  }

  cannotReach(error: unknown): boolean {
    return this.cards.cannotReach(error);
  }

  /** Links to messages exist in supergroups (and their topics); elsewhere there are none. */
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
