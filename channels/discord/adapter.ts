import { Client, Events, GatewayIntentBits, Partials, PermissionFlagsBits, Status } from "discord.js";
import type { Logger } from "../../src/log/logger.js";
import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelPrimitives,
  type ChatRef,
  type DirectChatChannel,
  type InboundSink,
  type MessageLinks,
  type OutboundText,
  type PartKey,
  type PrivateReplyChannel,
  type SendPartOptions,
  type SingletonLease,
  type SingletonLock,
  type StreamMode,
  type UserRolesChannel,
  type WorkingStatusChannel,
  type ChannelClock,
  systemClock,
} from "../../src/world/channel-adapter.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes, toPlatformError } from "./api.js";
import { DiscordApprovalCards } from "./approval-cards.js";
import { ChatLocator, targetChannelOf } from "./chat-locator.js";
import { ClickAnswerer } from "./click-answerer.js";
import { type AgentBot, apiFor, type BotUser, identifyAgentBot, identifyBot, typingApi } from "./agent-bots.js";
import { GuildCommands } from "./guild-commands.js";
import { handleInteraction } from "./handle-interaction.js";
import { handleMessage } from "./handle-message.js";
import { type MentionDirectory, emptyMentionDirectory } from "./mentions.js";
import { hasMessageContentIntent, messageContentAdvice } from "./message-content-intent.js";
import type { DiscordAdapterOptions, DiscordAgentIdentity } from "./options.js";
import { attachmentHostFor, type OwnIdentities, roleEntriesOf } from "./parse.js";
import { BotPoster, type PostBody, type Poster, WebhookPoster } from "./poster.js";
import { sendDiscordFile } from "./send-file.js";
import { type DiscordPart, renderText, stopButtonComponents } from "./render.js";
import { renderMentions } from "./render-mentions.js";
import { ThreadRoots } from "./thread-roots.js";
import { WebhookDirectory } from "./webhooks.js";

/**
 * Discord through discord.js: the gateway (guilds, guild messages, message content, direct
 * messages) for input, REST for output. Agents post through a channel webhook the app owns
 * under their names and avatars, through their own bot when they have one, else through the
 * bot with their name in bold. Cards carry buttons; every press is answered within Discord's
 * 3 seconds.
 */
export class DiscordAdapter
  implements
    ChannelAdapter,
    DirectChatChannel,
    UserRolesChannel,
    PrivateReplyChannel,
    MessageLinks,
    WorkingStatusChannel,
    ChannelPrimitives<DiscordPart>
{
  readonly id = "discord";
  readonly platform = "discord" as const;
  readonly capabilities: ChannelCapabilities = {
    canEdit: true,
    identifiesClickers: true,
    chatsNameTheirWorld: false,
  };
  readonly workingRenewMs: number;
  private readonly logger: Logger;
  private readonly clock: ChannelClock;
  private readonly api: DiscordApi;
  private readonly agents: Map<string, DiscordAgentIdentity>;
  private readonly agentBots = new Map<string, AgentBot>();
  private readonly webhooks: WebhookDirectory;
  private readonly threadRoots: ThreadRoots;
  private readonly cards: DiscordApprovalCards;
  private client: Client | undefined;
  private locator: ChatLocator | undefined;
  private answerer: ClickAnswerer | undefined;
  private directory: MentionDirectory = emptyMentionDirectory();
  private own: OwnIdentities;
  private applicationId = "";
  private sink: InboundSink | undefined;
  private inbox: Promise<void> = Promise.resolve();
  private warnedNoContent = false;
  private readonly commands: GuildCommands;
  private lockStop: AbortController | undefined;
  private holding: Promise<void> | undefined;
  private waitingForLock = false;

  constructor(private readonly options: DiscordAdapterOptions) {
    this.logger = options.logger.child({ platform: "discord" });
    this.clock = options.clock ?? systemClock;
    this.workingRenewMs = options.typingRenewMs ?? 8000;
    const retries = { clock: this.clock, logger: this.logger };
    this.api = apiFor(options.token, options.apiUrl, retries);
    this.agents = new Map((options.agents ?? []).map((agent) => [agent.name.toLowerCase(), agent]));
    for (const agent of options.agents ?? []) {
      if (agent.token)
        this.agentBots.set(agent.name.toLowerCase(), {
          agent: agent.name,
          api: apiFor(agent.token, options.apiUrl, retries),
        });
    }
    this.webhooks = new WebhookDirectory(
      this.api,
      options.webhookName ?? "Roundtable",
      () => this.applicationId,
      this.clock,
      this.logger,
    );
    this.own = { botUserIds: new Set(), applicationId: "", isOwnWebhook: (id) => this.webhooks.isOwn(id) };
    this.threadRoots = new ThreadRoots(this.api, this.logger);
    this.cards = new DiscordApprovalCards(this.api, this.logger);
    this.commands = new GuildCommands(this.api, () => this.applicationId, this.logger);
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    const [me, application] = await Promise.all([identifyBot(this.api, "main bot"), this.api.applicationFlagsAndId()]);
    this.applicationId = application.id;
    const contentIntent = hasMessageContentIntent(application.flags);
    if (!contentIntent) this.logger.warn({ bot: me.username }, messageContentAdvice);
    await Promise.all([...this.agentBots.values()].map((bot) => identifyAgentBot(bot, this.logger)));
    const botUserIds = new Set([
      me.id,
      ...[...this.agentBots.values()].flatMap((bot) => (bot.userId ? [bot.userId] : [])),
    ]);
    this.own = { botUserIds, applicationId: application.id, isOwnWebhook: (id) => this.webhooks.isOwn(id) };

    this.answerer = new ClickAnswerer(this.api, this.applicationId, this.logger);
    const lock = this.options.gatewayLock;
    if (lock) {
      // One process at a time holds the bot's gateway; the others wait (and are ready to post).
      this.lockStop = new AbortController();
      this.holding = this.connectWhileHolding(lock, me, contentIntent, this.lockStop.signal);
      return;
    }
    await this.connect(me, contentIntent);
  }

  /** Holds the gateway only while this process holds the bot's lock. */
  private async connectWhileHolding(lock: SingletonLock, me: BotUser, contentIntent: boolean, stop: AbortSignal) {
    while (!stop.aborted) {
      this.waitingForLock = true;
      let lease: SingletonLease;
      try {
        lease = await lock.acquire(`discord:${me.id}`, stop);
      } catch {
        return; // stopped while waiting
      } finally {
        this.waitingForLock = false;
      }
      try {
        await this.connect(me, contentIntent);
        const done = AbortSignal.any([lease.lost, stop]);
        if (!done.aborted) await new Promise((resolve) => done.addEventListener("abort", resolve, { once: true }));
        if (lease.lost.aborted && !stop.aborted) this.logger.warn("discord gateway lock lost: gateway closed");
      } catch (error) {
        this.logger.error({ err: error }, "discord gateway could not connect; trying again");
        await this.clock.sleep(5_000, stop).catch(() => undefined);
      } finally {
        await this.disconnect();
        await lease.release();
      }
    }
  }

  private async connect(me: BotUser, contentIntent: boolean): Promise<void> {
    const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
    // Asking for a privileged intent the application lacks closes the gateway (4014): leave it out.
    if (contentIntent) intents.push(GatewayIntentBits.MessageContent);
    const client = new Client({
      intents,
      partials: [Partials.Channel],
      waitGuildTimeout: 5_000,
      rest: this.options.apiUrl === undefined ? {} : { api: this.options.apiUrl },
    });
    this.client = client;
    this.locator = new ChatLocator(client, this.api);
    this.directory = this.buildDirectory(me);
    client.on(Events.Raw, (packet: { t?: unknown; d?: unknown }) => this.onDispatch(packet));
    client.on(Events.ShardDisconnect, (event) =>
      this.logger.warn({ code: event.code }, "discord gateway closed for good"),
    );
    client.on(Events.ShardReconnecting, () => this.logger.info("discord gateway reconnecting"));
    client.on(Events.ShardResume, (_shard, replayed) => this.logger.info({ replayed }, "discord gateway resumed"));
    client.on(Events.Error, (error) =>
      this.logger.error({ err: toPlatformError(error, "gateway") }, "discord gateway error"),
    );
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("discord gateway not ready in time")),
        this.options.readyTimeoutMs ?? 30_000,
      );
      client.once(Events.ClientReady, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      await client.login(this.options.token);
      await ready;
    } catch (error) {
      await client.destroy();
      this.client = undefined;
      throw toPlatformError(error, "gateway login");
    }
    this.logger.info({ bot: me.username, guilds: client.guilds.cache.size }, "discord gateway connected");
    await Promise.all([...client.guilds.cache.keys()].map((guildId) => this.commands.register(guildId)));
    client.on(Events.GuildCreate, (guild) => {
      // A guild the bot joins while running gets the commands too.
      if (!this.commands.has(guild.id)) void this.commands.register(guild.id);
    });
  }

  async stop(): Promise<void> {
    this.lockStop?.abort();
    await this.holding;
    await this.disconnect();
    this.sink = undefined;
    await this.inbox;
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.destroy();
  }

  isConnected(): boolean {
    return this.waitingForLock || this.client?.ws.status === Status.Ready;
  }

  // The channel primitives (docs/architecture.md, "Delivery"): one Discord message each.

  /** Discord Markdown in parts of 2,000 characters, with the author's bold name where the bot posts for it. */
  async renderParts(chat: ChatRef, message: OutboundText): Promise<DiscordPart[]> {
    const poster = await this.posterFor(chat, message.author);
    const ownBot = (agent: string) => this.agentBots.get(agent.toLowerCase())?.userId;
    const { text, userIds } = renderMentions(message.text, message.mentions, ownBot);
    return renderText(text, poster.prefixName).map((content) => ({ content, userIds }));
  }

  /** Discord keeps a message's content without its outer whitespace: only a difference inside it shows. */
  samePart(left: DiscordPart, right: DiscordPart): boolean {
    return left.content.trim() === right.content.trim();
  }

  /**
   * With `key`, the bot sends the part's nonce (an earlier post of it Discord still knows is
   * answered instead); a webhook cannot carry one ({@link findPosted} covers it). A webhook
   * someone deleted is found or made again once.
   */
  async sendPart(chat: ChatRef, author: Author, part: DiscordPart, options: SendPartOptions = {}): Promise<string> {
    const body = this.bodyOf(chat, author, part, options.live ?? false, options.replyTo);
    const poster = await this.posterFor(chat, author);
    try {
      return await poster.send(body, options.key);
    } catch (error) {
      if (!(poster instanceof WebhookPoster) || discordCodeOf(error) !== discordErrorCodes.unknownWebhook) throw error;
      this.webhooks.forget(chat.channel);
      const again = await this.posterFor(chat, author);
      // Rendered for the webhook (no bold name): the world's retry renders it for the bot.
      if (!(again instanceof WebhookPoster)) throw error;
      return again.send(body);
    }
  }

  /**
   * A file as an attachment (`send-file.ts`), from whoever posts `author`'s parts: an agent's
   * own bot, the channel's webhook under its name and avatar, else the bot with its bold name.
   */
  readonly sendFile: NonNullable<ChannelPrimitives["sendFile"]> = async (chat, author, file, options) => {
    const agent = author.kind === "agent" && chat.workspace !== undefined;
    const own = agent ? this.agentBots.get(author.name.toLowerCase()) : undefined;
    if (own?.userId) return sendDiscordFile(own.api.rest, chat, { ...author, kind: "bot" }, file, options);
    const identity = this.agents.get(author.name.toLowerCase());
    const named = { ...author, displayName: author.displayName ?? identity?.displayName ?? author.name };
    const avatarUrl = author.avatarUrl ?? identity?.avatarUrl;
    const webhook = agent ? await this.webhooks.get(chat.channel) : undefined;
    return sendDiscordFile(this.api.rest, chat, avatarUrl === undefined ? named : { ...named, avatarUrl }, file, {
      ...options,
      ...(webhook === undefined ? {} : { webhook }),
    });
  };

  async editPart(chat: ChatRef, author: Author, id: string, part: DiscordPart, options: { live?: boolean } = {}) {
    const poster = await this.posterFor(chat, author);
    try {
      // `components: []` takes away a Stop button the message may still carry.
      await poster.edit(id, { components: [], ...this.bodyOf(chat, author, part, options.live ?? false) });
      return "edited";
    } catch (error) {
      if (discordCodeOf(error) !== discordErrorCodes.unknownMessage) throw error;
      this.logger.warn({ messageId: id }, "a stored part of a message is gone; posting it again");
      return "gone";
    }
  }

  /** Through the author's way of posting; a message of another identity the bot's delete, then the webhook's. */
  async deletePart(chat: ChatRef, author: Author, id: string): Promise<void> {
    const gone = (error: unknown) => {
      if (discordCodeOf(error) !== discordErrorCodes.unknownMessage) throw error;
    };
    try {
      return await (await this.posterFor(chat, author)).delete(id);
    } catch (error) {
      if (discordCodeOf(error) === discordErrorCodes.unknownMessage) return;
    }
    const webhook = chat.workspace === undefined ? undefined : await this.webhooks.get(chat.channel);
    try {
      await this.api.delete(targetChannelOf(chat), id);
    } catch (error) {
      if (!webhook) return gone(error);
      await this.api.deleteWebhookMessage(webhook, chat.thread, id).catch(gone);
    }
  }

  /** The author's newest message since the key's bound: the bot's if alike, the webhook name's if not stored. */
  async findPosted(chat: ChatRef, author: Author, key: PartKey, part: DiscordPart) {
    const found = await (await this.posterFor(chat, author)).find(part.content, key);
    return found && { id: found.id, shows: { content: found.content, userIds: [] } };
  }

  /** Cards and their outcomes from the bot itself (`approval-cards.ts`). */
  sendCard(chat: ChatRef, card: ApprovalCard, key?: PartKey): Promise<{ id: string }> {
    return this.cards.send(chat, card, key);
  }

  redrawCard(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    return this.cards.redraw(chat, id, card);
  }

  editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    return this.cards.edit(chat, id, outcome);
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<DiscordPart> {
    return this.cards.renderOutcome(outcome);
  }

  /**
   * Posted, then edited at most once per `editIntervalMs` (per answer: discord.js waits out
   * Discord's rate limits); an agent's part being written carries Stop.
   */
  streamMode(_chat: ChatRef, author: Author): StreamMode<DiscordPart> {
    const liveControls = author.kind === "agent";
    return { kind: "edit", intervalMs: this.options.editIntervalMs ?? 1000, liveControls, clock: this.clock };
  }

  /**
   * A part as Discord's body: only the people it mentions may be pinged; a live agent's part
   * carries Stop; links show previews where the chat's world allows them (never the world's posts).
   */
  private bodyOf(chat: ChatRef, author: Author, part: DiscordPart, live: boolean, replyTo?: string): PostBody {
    const previews = author.kind !== "system" && (this.options.linkPreviews?.(chat) ?? false);
    return {
      content: part.content,
      allowedUserIds: part.userIds,
      ...(previews ? { linkPreviews: true } : {}),
      ...(live && author.kind === "agent" ? { components: stopButtonComponents(author.name) } : {}),
      ...(replyTo === undefined ? {} : { replyTo }),
    };
  }

  /** Typing as the agent's own bot where it posts as one, else the bot; Discord ends it on a post or after ~10 s. */
  async showWorking(chat: ChatRef, author: Author): Promise<void> {
    await typingApi(this.agentBots, chat, author, this.api).typing(targetChannelOf(chat));
  }
  async clearWorking(): Promise<void> {}

  /** How `author` posts in `chat`: its own bot, the channel webhook under its name, or the bot with its name in bold. */
  private async posterFor(chat: ChatRef, author: Author): Promise<Poster> {
    const channelId = targetChannelOf(chat);
    if (author.kind === "system") return new BotPoster(this.api, channelId, undefined, this.logger);
    const identity = this.agents.get(author.name.toLowerCase());
    const displayName = author.displayName ?? identity?.displayName ?? author.name;
    const avatarUrl = author.avatarUrl ?? identity?.avatarUrl;
    const inGuild = chat.workspace !== undefined;
    if (author.kind === "agent" && inGuild) {
      const own = this.agentBots.get(author.name.toLowerCase());
      if (own?.userId) return new BotPoster(own.api, channelId, undefined, this.logger);
      const webhook = await this.webhooks.get(chat.channel);
      if (webhook) {
        const identity = { username: displayName, ...(avatarUrl === undefined ? {} : { avatarUrl }) };
        return new WebhookPoster(this.api, webhook, chat.thread, identity, this.logger);
      }
    }
    return new BotPoster(this.api, channelId, displayName, this.logger);
  }

  private buildDirectory(me: { id: string; username: string; global_name?: string | null }): MentionDirectory {
    const agentNames = new Map<string, string>();
    for (const agent of this.options.agents ?? []) {
      agentNames.set(agent.name.toLowerCase(), agent.name);
      if (agent.displayName) agentNames.set(agent.displayName.toLowerCase(), agent.name);
    }
    const botAgent =
      agentNames.get(me.username.toLowerCase()) ??
      (me.global_name ? agentNames.get(me.global_name.toLowerCase()) : undefined);
    const agentBotsById = new Map<string, string>();
    for (const bot of this.agentBots.values()) if (bot.userId) agentBotsById.set(bot.userId, bot.agent);
    return {
      botUserId: me.id,
      ...(botAgent === undefined ? {} : { botAgent }),
      agentBotsById,
      agentNames,
      roleName: (guildId, roleId) => this.role(guildId, roleId)?.name,
      roleIsAdministrator: (guildId, roleId) =>
        this.role(guildId, roleId)?.permissions.has(PermissionFlagsBits.Administrator) ?? false,
      channelName: (channelId) => {
        const channel = this.client?.channels.cache.get(channelId);
        return channel && "name" in channel && typeof channel.name === "string" ? channel.name : undefined;
      },
    };
  }

  private role(guildId: string | undefined, roleId: string) {
    return guildId === undefined ? undefined : this.client?.guilds.cache.get(guildId)?.roles.cache.get(roleId);
  }

  /** The roles of a member of the chat's guild (names and ids; `admin` for administrators). */
  async rolesOf(chat: ChatRef, userId: string): Promise<string[]> {
    const guildId = chat.workspace;
    if (guildId === undefined) return [];
    const member = await this.api.guildMember(guildId, userId);
    const names = roleEntriesOf(guildId, member.roles, this.directory);
    const owner = this.client?.guilds.cache.get(guildId)?.ownerId === userId;
    if (owner || member.roles.some((id) => this.directory.roleIsAdministrator(guildId, id))) names.push("admin");
    return names;
  }

  openDirectChat(userId: string): Promise<ChatRef> {
    return this.cards.openDirectChat(userId);
  }

  /** Discord will not let the bot write there: no such user or channel, DMs closed, no access. */
  cannotReach(error: unknown): boolean {
    return this.cards.cannotReach(error);
  }

  /** A private word to one person: a DM from the bot (Discord has no ephemeral messages outside interactions). */
  async replyPrivately(_chat: ChatRef, userId: string, text: string): Promise<void> {
    const channelId = await this.api.directChannel(userId);
    for (const content of renderText(text)) await this.api.send(channelId, { content });
  }

  /** `https://discord.com/channels/<guild or @me>/<channel or thread>/<message>`. */
  messageLink(chat: ChatRef, platformMessageId: string): string | undefined {
    return `https://discord.com/channels/${chat.workspace ?? "@me"}/${targetChannelOf(chat)}/${platformMessageId}`;
  }

  private handleMessage(payload: unknown): Promise<void> {
    const { sink, locator } = this;
    if (!sink || !locator) return Promise.resolve();
    return handleMessage(payload, {
      sink,
      locator,
      directory: () => this.directory,
      own: () => this.own,
      attachmentHost: attachmentHostFor(this.options.apiUrl),
      threadRoots: this.threadRoots,
      firstMissingContent: () => {
        if (this.warnedNoContent) return false;
        this.warnedNoContent = true;
        return true;
      },
      logger: this.logger,
      clock: this.clock,
    });
  }

  /** Every gateway dispatch; messages in order, one at a time; presses at once (3-second rule). */
  private onDispatch(packet: { t?: unknown; d?: unknown }): void {
    if (packet.t === "MESSAGE_CREATE") {
      // discord.js links parts of the payload to each other once it caches it (circular, not
      // storable): keep the payload as it came.
      const payload = structuredClone(packet.d);
      this.inbox = this.inbox.then(() => this.handleMessage(payload));
      return;
    }
    if (packet.t === "INTERACTION_CREATE") {
      const { sink, locator, answerer } = this;
      if (!sink || !locator || !answerer) return;
      const context = { sink, locator, answerer, directory: () => this.directory, logger: this.logger };
      void handleInteraction(structuredClone(packet.d), context);
    }
  }
}
