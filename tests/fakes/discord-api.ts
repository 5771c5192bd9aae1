import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGateway } from "./discord-gateway.js";
import { type HeldResponse, HeldResponses } from "./held-responses.js";
import { channelPayload, guildPayload, parseBody } from "./discord-payloads.js";
import { type RestContext, type RestReply, type RestRequest, routes } from "./discord-rest.js";
import {
  DiscordState,
  type FakeChannel,
  type FakeDiscordUser,
  type FakeInteraction,
  type FakeRole,
  type Json,
  messageContentFlag,
  type StoredDiscordMessage,
  snowflake,
} from "./discord-state.js";
import type { DiscordFault, FakeBotSetup, InjectedFailure, RecordedRestCall } from "./discord-api-types.js";

export type { FakeChannel, FakeDiscordUser, FakeInteraction, FakeRole, StoredDiscordMessage } from "./discord-state.js";
export { messageContentFlag, messageContentLimitedFlag } from "./discord-state.js";
export type { DiscordFault, FakeBotSetup, RecordedRestCall } from "./discord-api-types.js";

/**
 * A fake Discord on 127.0.0.1: the REST API under `/api/v10` (JSON and multipart bodies, bot
 * tokens checked, rate-limit headers, 429 injection with `retry_after`) and a gateway
 * WebSocket at `/gateway` (tests/fakes/discord-gateway.ts). Point discord.js at it with
 * `rest: { api: fake.apiUrl }`; `GET /gateway/bot` sends the client to the fake gateway.
 * Everything a bot or webhook posts comes back on the gateway as a MESSAGE_CREATE, as on
 * Discord, so echoes of the service's own posts are part of every test.
 */

/** The gateway intent that lets a bot read every guild message's text. */
const messageContentIntent = 1 << 15;

export class FakeDiscord {
  readonly state = new DiscordState();
  readonly calls: RecordedRestCall[] = [];
  readonly applicationCommands = new Map<string, unknown[]>();
  readonly gateway: FakeGateway;
  private readonly bots = new Map<string, { user: FakeDiscordUser; applicationId: string; flags: number }>();
  private readonly failures: InjectedFailure[] = [];
  private readonly held = new HeldResponses();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {
    this.state.cdnOrigin = origin;
    this.gateway = new FakeGateway(
      server,
      {
        identify: (token) => {
          const bot = this.bots.get(token);
          if (!bot) return undefined;
          return {
            user: { ...bot.user, discriminator: "0", avatar: null, bot: true },
            application: { id: bot.applicationId, flags: bot.flags },
          };
        },
        guilds: () => [...this.state.guilds.keys()].map((id) => guildPayload(this.state, id)),
        shape: (session, t, d) => this.shapeForIntents(session.token, session.intents, t, d),
      },
      `${origin.replace(/^http/, "ws")}/gateway`,
    );
  }

  /** What discord.js takes as `rest.api` (and `DISCORD_API_URL`). */
  get apiUrl(): string {
    return `${this.origin}/api`;
  }

  static async start(bots: FakeBotSetup[]): Promise<FakeDiscord> {
    let fake: FakeDiscord | undefined;
    const server = createServer((request, response) => {
      void fake?.serve(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeDiscord(server, `http://127.0.0.1:${port}`);
    for (const bot of bots) fake.addBot(bot);
    return fake;
  }

  addBot(setup: FakeBotSetup): FakeDiscordUser {
    const user: FakeDiscordUser = { id: snowflake(), username: setup.username, global_name: null, bot: true };
    this.state.users.set(user.id, user);
    this.bots.set(setup.token, { user, applicationId: snowflake(), flags: setup.flags ?? messageContentFlag });
    return user;
  }

  botUser(token: string): FakeDiscordUser {
    const bot = this.bots.get(token);
    if (!bot) throw new Error("unknown bot token");
    return bot.user;
  }

  applicationId(token: string): string {
    const bot = this.bots.get(token);
    if (!bot) throw new Error("unknown bot token");
    return bot.applicationId;
  }

  setApplicationFlags(token: string, flags: number): void {
    const bot = this.bots.get(token);
    if (bot) bot.flags = flags;
  }

  addUser(username: string, globalName?: string): FakeDiscordUser {
    const user: FakeDiscordUser = { id: snowflake(), username, global_name: globalName ?? null };
    this.state.users.set(user.id, user);
    return user;
  }

  /** A guild with roles (`@everyone` first); the bots are members. */
  addGuild(name: string, roleNames: string[] = []): { id: string; roles: FakeRole[] } {
    const id = snowflake();
    const roles: FakeRole[] = [
      { id, name: "@everyone", permissions: "0" },
      ...roleNames.map((role) => ({ id: snowflake(), name: role, permissions: "0" })),
    ];
    this.state.guilds.set(id, { id, name, ownerId: snowflake(), roles });
    for (const bot of this.bots.values())
      this.state.members.set(this.state.memberKey(id, bot.user.id), { user: bot.user, roles: [] });
    return { id, roles };
  }

  addMember(guildId: string, user: FakeDiscordUser, roleNames: string[] = [], nick?: string): void {
    const guild = this.state.guilds.get(guildId);
    if (!guild) throw new Error("unknown guild");
    const roles = roleNames.map((name) => {
      const role = guild.roles.find((each) => each.name === name);
      if (!role) throw new Error(`unknown role ${name}`);
      return role.id;
    });
    this.state.members.set(this.state.memberKey(guildId, user.id), {
      user,
      roles,
      ...(nick === undefined ? {} : { nick }),
    });
  }

  addTextChannel(guildId: string, name: string, options: { manageWebhooks?: boolean } = {}): FakeChannel {
    const channel: FakeChannel = {
      id: snowflake(),
      type: 0,
      guild_id: guildId,
      name,
      manageWebhooks: options.manageWebhooks ?? true,
    };
    this.state.channels.set(channel.id, channel);
    return channel;
  }

  /**
   * A thread under `parentId` (public thread, type 11), started from `starterMessageId` when
   * given (its id is then the starter's, as on Discord). Dispatches THREAD_CREATE when connected
   * (unless `silent`).
   */
  addThread(
    parentId: string,
    name: string,
    starterMessageId?: string,
    options: { silent?: boolean } = {},
  ): FakeChannel {
    const parent = this.state.channels.get(parentId);
    if (!parent?.guild_id) throw new Error("unknown parent channel");
    const thread: FakeChannel = {
      id: starterMessageId ?? snowflake(),
      type: 11,
      guild_id: parent.guild_id,
      parent_id: parentId,
      name,
      manageWebhooks: parent.manageWebhooks,
    };
    this.state.channels.set(thread.id, thread);
    // `silent`: a thread the bot never heard of (created while it was away).
    if (this.gateway.current() && options.silent !== true) {
      this.gateway.dispatch("THREAD_CREATE", { ...channelPayload(thread), newly_created: true });
    }
    return thread;
  }

  addDirectChannel(user: FakeDiscordUser): FakeChannel {
    const channel: FakeChannel = { id: snowflake(), type: 1, recipients: [user], manageWebhooks: false };
    this.state.channels.set(channel.id, channel);
    return channel;
  }

  /** A person writes; dispatched as MESSAGE_CREATE. `<@id>` mentions are read from the text. */
  userMessage(options: {
    channelId: string;
    author: FakeDiscordUser;
    content: string;
    replyTo?: string;
    /** Files the person attaches (served from the fake's CDN path, as Discord's signed URLs). */
    attachments?: { filename: string; bytes: Uint8Array }[];
  }): StoredDiscordMessage {
    const channel = this.state.channels.get(options.channelId);
    if (!channel) throw new Error("unknown channel");
    const message = this.state.addMessage({
      channel_id: channel.id,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      author: options.author,
      content: options.content,
      components: [],
      embeds: [],
      attachments: (options.attachments ?? []).map((file) => ({
        id: snowflake(),
        filename: file.filename,
        size: file.bytes.length,
        content: "",
        bytes: file.bytes,
      })),
      flags: 0,
      ...(options.replyTo
        ? {
            message_reference: {
              message_id: options.replyTo,
              channel_id: channel.id,
              ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
            },
          }
        : {}),
    });
    this.gateway.dispatch("MESSAGE_CREATE", this.state.toPayload(message));
    return message;
  }

  /** Send a MESSAGE_CREATE again (a duplicate delivery). */
  redeliver(message: StoredDiscordMessage): void {
    this.gateway.dispatch("MESSAGE_CREATE", this.state.toPayload(message));
  }

  /** A person presses a button of a message; dispatched as INTERACTION_CREATE (type 3). */
  click(options: {
    message: StoredDiscordMessage;
    user: FakeDiscordUser;
    customId: string;
    permissions?: string;
  }): FakeInteraction {
    const message = options.message;
    const applicationId = message.application_id ?? [...this.bots.values()][0]?.applicationId ?? "0";
    const interaction: FakeInteraction = {
      id: snowflake(),
      token: `interaction-${snowflake()}`,
      applicationId,
      channelId: message.channel_id,
      messageId: message.id,
      user: options.user,
      dispatchedAt: Date.now(),
      callbacks: [],
      ephemeral: [],
      followups: [],
    };
    this.state.interactions.set(interaction.id, interaction);
    const member = message.guild_id ? this.state.member(message.guild_id, options.user.id) : undefined;
    const user = { ...options.user, discriminator: "0", avatar: null };
    this.gateway.dispatch("INTERACTION_CREATE", {
      id: interaction.id,
      application_id: applicationId,
      type: 3,
      token: interaction.token,
      version: 1,
      channel_id: message.channel_id,
      channel: { id: message.channel_id, type: this.state.channels.get(message.channel_id)?.type ?? 0 },
      ...(message.guild_id
        ? {
            guild_id: message.guild_id,
            member: {
              user,
              roles: member?.roles ?? [],
              nick: member?.nick ?? null,
              permissions: options.permissions ?? "0",
              joined_at: new Date(0).toISOString(),
            },
          }
        : { user }),
      message: this.state.toPayload(message),
      data: { custom_id: options.customId, component_type: 2 },
      locale: "en-US",
      app_permissions: "0",
      entitlements: [],
      authorizing_integration_owners: {},
      context: message.guild_id ? 0 : 1,
    });
    return interaction;
  }

  /** A person runs an application command (`/agents`, …) in a channel; dispatched as INTERACTION_CREATE (type 2). */
  slashCommand(options: {
    channelId: string;
    user: FakeDiscordUser;
    name: string;
    /** The command's options as Discord sends them (`{ name, type: 3, value }` for a string). */
    options?: { name: string; type: number; value: string }[];
  }): FakeInteraction {
    const channel = this.state.channels.get(options.channelId);
    if (!channel) throw new Error("unknown channel");
    const applicationId = [...this.bots.values()][0]?.applicationId ?? "0";
    const interaction: FakeInteraction = {
      id: snowflake(),
      token: `interaction-${snowflake()}`,
      applicationId,
      channelId: channel.id,
      messageId: "",
      user: options.user,
      dispatchedAt: Date.now(),
      callbacks: [],
      ephemeral: [],
      followups: [],
    };
    this.state.interactions.set(interaction.id, interaction);
    const member = channel.guild_id ? this.state.member(channel.guild_id, options.user.id) : undefined;
    const user = { ...options.user, discriminator: "0", avatar: null };
    this.gateway.dispatch("INTERACTION_CREATE", {
      id: interaction.id,
      application_id: applicationId,
      type: 2,
      token: interaction.token,
      version: 1,
      channel_id: channel.id,
      channel: { id: channel.id, type: channel.type },
      ...(channel.guild_id
        ? {
            guild_id: channel.guild_id,
            member: {
              user,
              roles: member?.roles ?? [],
              nick: member?.nick ?? null,
              permissions: "0",
              joined_at: new Date(0).toISOString(),
            },
          }
        : { user }),
      data: {
        id: snowflake(),
        name: options.name,
        type: 1,
        ...(options.options === undefined ? {} : { options: options.options }),
      },
      locale: "en-US",
      app_permissions: "0",
      entitlements: [],
      authorizing_integration_owners: {},
      context: channel.guild_id ? 0 : 1,
    });
    return interaction;
  }

  /** The next `times` calls matching `method` and `pattern` (a path under /api/v10) get 429. */
  rateLimitNext(method: string, pattern: RegExp, retryAfterSeconds: number, times = 1): void {
    this.failures.push({
      method,
      pattern,
      times,
      status: 429,
      body: { message: "You are being rate limited.", retry_after: retryAfterSeconds, global: false },
      headers: {
        "retry-after": String(retryAfterSeconds),
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": String(retryAfterSeconds),
        "x-ratelimit-bucket": `bucket-${pattern.source}`,
        "x-ratelimit-scope": "user",
      },
    });
  }

  /** The next call matching `method` and `pattern` (a path under /api/v10) is carried out, not answered. */
  holdNext(method: string, pattern: RegExp): HeldResponse {
    return this.held.next(method, pattern);
  }

  /** The next `times` matching calls fail with `status` and Discord's error body. */
  failNext(method: string, pattern: RegExp, status: number, code: number, message: string, times = 1): void {
    this.failures.push({ method, pattern, times, status, body: { code, message }, headers: {} });
  }

  /**
   * The next `times` calls matching `method` and `pattern` play `fault`: a 5xx (default 502) or a
   * cut connection, before the call is carried out (Discord refused it) or after (Discord took
   * it and the answer was lost). For the chaos harness and the fault tests.
   */
  faultNext(method: string, pattern: RegExp, fault: DiscordFault = {}, times = 1): void {
    const status = fault.status ?? 502;
    this.failures.push({
      method,
      pattern,
      times,
      status,
      body: { code: 0, message: `${status}: Bad Gateway` },
      headers: {},
      ...(fault.afterDoing ? { afterDoing: true } : {}),
      ...(fault.reset ? { reset: true } : {}),
    });
  }

  messagesIn(channelId: string): StoredDiscordMessage[] {
    return this.state.messagesIn(channelId);
  }

  message(id: string): StoredDiscordMessage | undefined {
    return this.state.messages.get(id);
  }

  callsTo(method: string, pattern: RegExp): RecordedRestCall[] {
    return this.calls.filter((call) => call.method === method && pattern.test(call.path));
  }

  async close(): Promise<void> {
    await this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Without the message content intent Discord sends guild messages with empty content,
   * embeds, attachments and components, except messages that mention the bot (and DMs).
   */
  private shapeForIntents(token: string, intents: number, t: string, d: unknown): unknown {
    if ((intents & messageContentIntent) !== 0 || (t !== "MESSAGE_CREATE" && t !== "MESSAGE_UPDATE")) return d;
    const message = d as Json;
    if (message.guild_id === undefined) return d;
    const botId = this.bots.get(token)?.user.id;
    const mentioned = ((message.mentions as { id?: string }[] | undefined) ?? []).some((user) => user.id === botId);
    if (mentioned || (message.author as { id?: string } | undefined)?.id === botId) return d;
    return { ...message, content: "", embeds: [], attachments: [], components: [] };
  }

  /** The CDN paths fetched, in order. */
  readonly attachmentDownloads: string[] = [];

  private serveAttachment(pathname: string, response: ServerResponse): void {
    const [, , channelId, id] = pathname.split("/");
    const attachment = [...this.state.messages.values()]
      .filter((message) => message.channel_id === channelId)
      .flatMap((message) => message.attachments)
      .find((each) => each.id === id);
    this.attachmentDownloads.push(pathname);
    if (attachment?.bytes === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": attachment.bytes.length });
    response.end(attachment.bytes);
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? "/", this.origin);
      if (request.method === "GET" && url.pathname.startsWith("/attachments/")) {
        this.serveAttachment(url.pathname, response);
        return;
      }
      const prefix = "/api/v10";
      if (!url.pathname.startsWith(prefix)) {
        this.reply(response, { status: 404, body: { code: 0, message: "404: Not Found" } });
        return;
      }
      const path = url.pathname.slice(prefix.length);
      const method = (request.method ?? "GET").toUpperCase();
      const raw = Buffer.concat(await request.toArray());
      const { body, files } = await parseBody(raw, String(request.headers["content-type"] ?? ""));
      const authorization = String(request.headers.authorization ?? "");
      const token = authorization.startsWith("Bot ") ? authorization.slice(4) : undefined;
      const rest: RestRequest = { method, path, query: url.searchParams, token, body: body as Json, files };
      const record = (status: number): void => {
        this.calls.push({ method, path, query: url.search, token, body, files, status });
      };
      const failure = this.failures.find((each) => each.times > 0 && each.method === method && each.pattern.test(path));
      if (failure) failure.times -= 1;
      const route = routes.find((each) => each.method === method && each.pattern.test(path));
      if (failure) {
        // Carried out first when the fault says Discord took the call.
        if (failure.afterDoing && route) route.handle(rest, [...(route.pattern.exec(path) ?? [])], this.context());
        record(failure.reset ? 0 : failure.status);
        if (failure.reset) request.socket.destroy();
        else this.reply(response, { status: failure.status, body: failure.body }, failure.headers);
        return;
      }
      if (!route) {
        record(404);
        this.reply(response, { status: 404, body: { code: 0, message: "404: Not Found" } });
        return;
      }
      if (route.auth && (token === undefined || !this.bots.has(token))) {
        record(401);
        this.reply(response, { status: 401, body: { code: 0, message: "401: Unauthorized" } });
        return;
      }
      const match = route.pattern.exec(path) ?? [];
      const reply = route.handle(rest, [...match], this.context());
      record(reply.status);
      const answer = () =>
        this.reply(response, reply, {
          "x-ratelimit-limit": "50",
          "x-ratelimit-remaining": "49",
          "x-ratelimit-reset-after": "1",
          "x-ratelimit-bucket": `bucket-${route.pattern.source}`,
        });
      const held = this.held.take(method, path);
      if (held) held.hold(response, answer);
      else answer();
    } catch (error) {
      this.reply(response, { status: 500, body: { code: 0, message: String(error) } });
    }
  }

  private context(): RestContext {
    return {
      state: this.state,
      gatewayUrl: this.gateway.url,
      bot: (token) => this.bots.get(token),
      dispatch: (t, d) => {
        if (this.gateway.current()) this.gateway.dispatch(t, d);
      },
      applicationCommands: this.applicationCommands,
    };
  }

  private reply(response: ServerResponse, reply: RestReply, headers: Record<string, string> = {}): void {
    if (reply.status === 204) {
      // discord.js parses any application/json reply; a 204 carries no content type.
      response.writeHead(204, headers);
      response.end();
      return;
    }
    response.writeHead(reply.status, { ...headers, "content-type": "application/json" });
    response.end(JSON.stringify(reply.body ?? {}));
  }
}
