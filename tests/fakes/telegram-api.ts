import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type FakeChat,
  FakeChats,
  type FakeUser,
  type Json,
  type Outcome,
  ok,
  refuse,
  type StoredMessage,
} from "./telegram-messages.js";
import { FakeTelegramFiles } from "./telegram-files.js";
import { multipartParams } from "./telegram-multipart.js";
import type { FakeEntity } from "./telegram-html.js";
import type { BotState, FakeBotSetup, InjectedFailure, RecordedCall } from "./telegram-api-types.js";

export type { FakeChat, FakeUser, StoredMessage } from "./telegram-messages.js";
export type { FakeBotSetup, InjectedFailure, RecordedCall } from "./telegram-api-types.js";

/**
 * A fake Telegram Bot API server on 127.0.0.1 speaking the real HTTP protocol
 * (`{apiRoot}/bot{token}/{method}`, JSON in, `{ ok, result }` out). It keeps state (bots,
 * chats, messages, pending updates with confirmed offsets, webhooks, drafts, callback answers),
 * parses HTML the way Telegram does (refusing what Telegram refuses), records every call, and
 * can be told to refuse the next calls of a method (429 with `retry_after`, 5xx, …).
 */

export class FakeTelegramApi {
  readonly calls: RecordedCall[] = [];
  readonly drafts: { token: string; chatId: number; draftId: number; text: string }[] = [];
  readonly callbackAnswers = new Map<string, { text?: string; show_alert?: boolean }>();
  /** The command menu each bot registered with `setMyCommands`, by token. */
  readonly commandMenus = new Map<string, { command: string; description: string }[]>();
  private readonly bots = new Map<string, BotState>();
  private readonly chats = new FakeChats();
  private readonly failures: {
    method: string;
    token?: string;
    failure: InjectedFailure;
    times: number;
    after: number;
  }[] = [];
  private readonly queries = new Map<string, { answered: boolean }>();
  private readonly memberStatus = new Map<string, string>();
  private nextQueryId = 1;
  private nextBotId = 7000;
  /** Files people sent (what `getFile` and the file endpoint serve). */
  readonly files = new FakeTelegramFiles();
  /** Set false to play a Bot API server without `sendMessageDraft` (answers 404). */
  draftsSupported = true;
  /** False: keep no calls in `calls` (a long bench would hold them all). */
  recordCalls = true;
  /** Called with every call as it is answered (the bench times replies with it). */
  onCall: ((call: RecordedCall) => void) | undefined;
  /**
   * Set true to play a server that answers `getUpdates` at once even when asked to wait (as
   * some emulators do): an empty list comes back without the long poll's wait.
   */
  answerPollsAtOnce = false;
  /** Called when a call arrives, before it is answered (a long poll is answered much later). */
  onArrival: ((method: string) => void) | undefined;
  /** Called with the caller's TCP port when a connection opens (its process is still there). */
  onConnection: ((remotePort: number) => void) | undefined;

  private constructor(
    private readonly server: Server,
    readonly apiRoot: string,
  ) {}

  static async start(bots: FakeBotSetup[]): Promise<FakeTelegramApi> {
    let fake: FakeTelegramApi | undefined;
    const server = createServer((request, response) => {
      void fake?.handle(request, response);
    });
    // A deep accept queue: a bench opens hundreds of connections at once while this process is
    // busy, and past Node's default of 511 the kernel drops them (the client sees ECONNRESET).
    await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeTelegramApi(server, `http://127.0.0.1:${port}`);
    server.on("connection", (socket) => {
      if (socket.remotePort !== undefined) fake?.onConnection?.(socket.remotePort);
    });
    for (const bot of bots) fake.addBot(bot);
    return fake;
  }

  addBot(setup: FakeBotSetup): FakeUser {
    const user: FakeUser = {
      id: this.nextBotId++,
      is_bot: true,
      first_name: setup.firstName ?? setup.username,
      username: setup.username,
    };
    this.bots.set(setup.token, {
      setup,
      user,
      updates: [],
      nextUpdateId: 500_000,
      confirmedOffset: 0,
      waiters: new Set(),
    });
    return user;
  }

  botUser(token: string): FakeUser {
    return this.bot(token).user;
  }

  addChat(chat: FakeChat): FakeChat {
    return this.chats.add(chat);
  }

  /** Make the chat's next message id `next` (a chat that had messages before this fake started). */
  continueMessageIds(chatId: number, next: number): void {
    this.chats.continueMessageIds(chatId, next);
  }

  async close(): Promise<void> {
    for (const bot of this.bots.values()) for (const wake of bot.waiters) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- test controls -------------------------------------------------------------------

  /**
   * The next `times` calls of `method` (by `token`, or any bot) are refused with `failure`, once
   * `after` such calls (default 0) have gone through.
   */
  failNext(
    method: string,
    failure: InjectedFailure,
    options: { times?: number; token?: string; after?: number } = {},
  ): void {
    this.failures.push({
      method,
      failure,
      times: options.times ?? 1,
      after: options.after ?? 0,
      ...(options.token ? { token: options.token } : {}),
    });
  }

  /** Drop the refusals of `method` not yet made (an outage that ended); resolves how many were left. */
  clearFailures(method: string): number {
    let left = 0;
    for (let index = this.failures.length - 1; index >= 0; index--) {
      const entry = this.failures[index];
      if (entry?.method !== method) continue;
      left += entry.times;
      this.failures.splice(index, 1);
    }
    return left;
  }

  /** A person's status in a chat (`creator`, `administrator`, `member`, …); `member` unless set. */
  setMemberStatus(chatId: number, userId: number, status: string): void {
    this.memberStatus.set(`${chatId}:${userId}`, status);
  }

  /** Queue a raw update for a bot (an `update_id` is assigned). Returns the update. */
  pushUpdate(token: string, update: Json): Json {
    const bot = this.bot(token);
    const full = { update_id: bot.nextUpdateId++, ...update };
    bot.updates.push(full);
    for (const wake of bot.waiters) wake();
    return full;
  }

  /** A person writes in a chat; the bot with `token` gets the update. */
  userMessage(
    token: string,
    input: {
      chatId: number;
      from: FakeUser;
      text: string;
      entities?: FakeEntity[];
      threadId?: number;
      replyTo?: number;
    },
  ): { message: Json; update: Json } {
    const chat = this.chat(input.chatId);
    const stored: StoredMessage = {
      message_id: this.chats.allocateMessageId(chat.id),
      chat,
      from: input.from,
      text: input.text,
      entities: input.entities ?? [],
      editCount: 0,
      ...(input.threadId === undefined ? {} : { message_thread_id: input.threadId }),
      ...(input.replyTo === undefined ? {} : { reply_to_message_id: input.replyTo }),
    };
    this.chats.store(stored);
    const message = this.chats.messageJson(stored);
    return { message, update: this.pushUpdate(token, { message }) };
  }

  /**
   * A person sends a photo (Telegram gives it in two sizes: a thumbnail and this one) and/or a
   * document, with an optional caption; the bot with `token` gets the update.
   */
  userFiles(
    token: string,
    input: {
      chatId: number;
      from: FakeUser;
      caption?: string;
      captionEntities?: FakeEntity[];
      photo?: Uint8Array;
      document?: { bytes: Uint8Array; name: string };
      voice?: Uint8Array;
    },
  ): { message: Json; update: Json } {
    const chat = this.chat(input.chatId);
    const stored: StoredMessage = {
      message_id: this.chats.allocateMessageId(chat.id),
      chat,
      from: input.from,
      text: input.caption ?? "",
      entities: [],
      editCount: 0,
    };
    this.chats.store(stored);
    const { text: _text, ...message } = this.chats.messageJson(stored);
    if (input.caption !== undefined) message.caption = input.caption;
    if (input.captionEntities !== undefined && input.captionEntities.length > 0)
      message.caption_entities = input.captionEntities;
    Object.assign(message, this.files.fields(input));
    return { message, update: this.pushUpdate(token, { message }) };
  }

  /** A person presses an inline button on a message; returns the callback query id. */
  pressButton(token: string, input: { chatId: number; messageId: number; from: FakeUser; data: string }): string {
    const stored = this.chats.message(input.chatId, input.messageId);
    if (!stored) throw new Error(`no message ${input.messageId} in chat ${input.chatId}`);
    const id = `cq${this.nextQueryId++}`;
    this.queries.set(id, { answered: false });
    this.pushUpdate(token, {
      callback_query: {
        id,
        from: input.from,
        chat_instance: "ci1",
        message: this.chats.messageJson(stored),
        data: input.data,
      },
    });
    return id;
  }

  /** Deliver an update to the bot's webhook as Telegram would (with its secret token). */
  async deliverWebhook(
    token: string,
    update: Json,
    secretOverride?: string | null,
  ): Promise<{ status: number; body: string }> {
    const hook = this.bot(token).webhook;
    if (!hook) throw new Error("no webhook set");
    const headers: Record<string, string> = { "content-type": "application/json" };
    const secret = secretOverride === undefined ? hook.secret_token : secretOverride;
    if (secret !== null && secret !== undefined) headers["x-telegram-bot-api-secret-token"] = secret;
    const response = await fetch(hook.url, { method: "POST", headers, body: JSON.stringify(update) });
    return { status: response.status, body: await response.text() };
  }

  confirmedOffset(token: string): number {
    return this.bot(token).confirmedOffset;
  }

  pendingUpdates(token: string): Json[] {
    const bot = this.bot(token);
    return bot.updates.filter((update) => (update.update_id as number) >= bot.confirmedOffset);
  }

  webhookOf(token: string): { url: string; secret_token?: string } | undefined {
    return this.bot(token).webhook;
  }

  /** Messages in a chat (a forum topic when `threadId` is given), in order, deleted ones left out. */
  messagesIn(chatId: number, threadId?: number): StoredMessage[] {
    return this.chats.messagesIn(chatId, threadId);
  }

  message(chatId: number, messageId: number): StoredMessage | undefined {
    return this.chats.message(chatId, messageId);
  }

  callsTo(method: string, token?: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && (token === undefined || call.token === token));
  }

  // ---- the protocol ---------------------------------------------------------------------

  private bot(token: string): BotState {
    const bot = this.bots.get(token);
    if (!bot) throw new Error(`no bot with token ${token}`);
    return bot;
  }

  private chat(chatId: number): FakeChat {
    const chat = this.chats.get(chatId);
    if (!chat) throw new Error(`no chat ${chatId}`);
    return chat;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const pathname = new URL(request.url ?? "/", "http://x").pathname;
    if (request.method === "GET" && this.files.serve(pathname, (token) => this.bots.has(token), response)) return;
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString("utf8");
    const send = (outcome: Outcome): void => {
      if (response.writableEnded || response.destroyed) return;
      response.writeHead(outcome.ok ? 200 : outcome.error_code, { "content-type": "application/json" });
      response.end(JSON.stringify(outcome));
    };
    if (!match) return send(refuse(404, "Not Found"));
    const [, token = "", method = ""] = match;
    this.onArrival?.(method);
    const contentType = request.headers["content-type"] ?? "";
    const params = contentType.startsWith("multipart/form-data")
      ? await multipartParams(raw, contentType)
      : ((body === "" ? {} : JSON.parse(body)) as Json);
    const bot = this.bots.get(token);
    const record = (outcome: Outcome): void => {
      const call: RecordedCall = {
        token,
        method,
        params,
        ok: outcome.ok,
        ...(outcome.ok ? { result: outcome.result } : { errorCode: outcome.error_code }),
        ...(request.socket.remotePort === undefined ? {} : { remotePort: request.socket.remotePort }),
      };
      if (this.recordCalls) this.calls.push(call);
      send(outcome);
      this.onCall?.(call);
    };
    if (!bot) return record(refuse(401, "Unauthorized"));
    const injected = this.failures.find((entry) => entry.method === method && (!entry.token || entry.token === token));
    if (injected && injected.after > 0) injected.after -= 1;
    else if (injected) {
      injected.times -= 1;
      if (injected.times <= 0) this.failures.splice(this.failures.indexOf(injected), 1);
      const { error_code, description, retry_after, raw } = injected.failure;
      if (raw) {
        if (this.recordCalls) this.calls.push({ token, method, params, ok: false, errorCode: error_code });
        response.writeHead(error_code, { "content-type": raw.contentType ?? "text/html" });
        response.end(raw.body);
        return;
      }
      return record(refuse(error_code, description, retry_after === undefined ? undefined : { retry_after }));
    }
    if (method === "getUpdates") return record(await this.getUpdates(bot, params, request));
    record(this.call(bot, token, method, params));
  }

  private async getUpdates(bot: BotState, params: Json, request: IncomingMessage): Promise<Outcome> {
    if (bot.webhook)
      return refuse(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    const offset = typeof params.offset === "number" ? params.offset : 0;
    if (offset > bot.confirmedOffset) bot.confirmedOffset = offset;
    bot.updates = bot.updates.filter((update) => (update.update_id as number) >= bot.confirmedOffset);
    const limit = typeof params.limit === "number" ? params.limit : 100;
    const timeout = this.answerPollsAtOnce ? 0 : typeof params.timeout === "number" ? params.timeout : 0;
    if (bot.updates.length === 0 && timeout > 0) {
      bot.activePoll?.();
      let conflict = false;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          bot.waiters.delete(done);
          request.socket.off("close", done);
          if (bot.activePoll === terminate) delete bot.activePoll;
          resolve();
        };
        const terminate = (): void => {
          conflict = true;
          done();
        };
        const timer = setTimeout(done, timeout * 1000);
        bot.waiters.add(done);
        bot.activePoll = terminate;
        request.socket.once("close", done);
      });
      if (conflict)
        return refuse(
          409,
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
        );
    }
    return ok(bot.updates.slice(0, limit));
  }

  private call(bot: BotState, token: string, method: string, params: Json): Outcome {
    switch (method) {
      case "getMe":
        return ok({
          ...bot.user,
          can_join_groups: true,
          can_read_all_group_messages: bot.setup.canReadAllGroupMessages ?? false,
          supports_inline_queries: false,
        });
      case "setWebhook": {
        if (typeof params.url !== "string" || params.url === "")
          return refuse(400, "Bad Request: bad webhook: URL must be set");
        bot.webhook = {
          url: params.url,
          ...(typeof params.secret_token === "string" ? { secret_token: params.secret_token } : {}),
        };
        if (params.drop_pending_updates === true) bot.updates = [];
        return ok(true);
      }
      case "setMyCommands": {
        const commands = params.commands;
        const valid =
          Array.isArray(commands) &&
          commands.length <= 100 &&
          commands.every(
            (entry) =>
              typeof entry === "object" &&
              entry !== null &&
              /^[a-z0-9_]{1,32}$/.test(String((entry as Json).command)) &&
              typeof (entry as Json).description === "string" &&
              String((entry as Json).description).length >= 1 &&
              String((entry as Json).description).length <= 256,
          );
        if (!valid) return refuse(400, "Bad Request: BOT_COMMAND_INVALID");
        this.commandMenus.set(token, commands as { command: string; description: string }[]);
        return ok(true);
      }
      case "deleteWebhook":
        delete bot.webhook;
        if (params.drop_pending_updates === true) bot.updates = [];
        return ok(true);
      case "sendMessage":
        return this.chats.send(bot.user, token, params);
      case "sendDocument":
        return this.chats.sendDocument(bot.user, token, params);
      case "sendPhoto":
        return this.chats.sendPhoto(bot.user, token, params);
      case "editMessageText":
        return this.chats.edit(token, params, true);
      case "editMessageReplyMarkup":
        return this.chats.edit(token, params, false);
      case "deleteMessage":
        return this.chats.delete(params);
      case "answerCallbackQuery": {
        const query = this.queries.get(String(params.callback_query_id));
        if (!query || query.answered)
          return refuse(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
        query.answered = true;
        const answer: { text?: string; show_alert?: boolean } = {};
        if (typeof params.text === "string") answer.text = params.text;
        if (typeof params.show_alert === "boolean") answer.show_alert = params.show_alert;
        this.callbackAnswers.set(String(params.callback_query_id), answer);
        return ok(true);
      }
      case "getChatMember": {
        if (!this.chats.get(Number(params.chat_id))) return refuse(400, "Bad Request: chat not found");
        const status = this.memberStatus.get(`${params.chat_id}:${params.user_id}`) ?? "member";
        return ok({ status, user: { id: params.user_id, is_bot: false, first_name: "?" } });
      }
      case "sendChatAction": {
        // Recorded in `calls` like every call; a status shows nothing lasting in the chat.
        if (!this.chats.get(Number(params.chat_id))) return refuse(400, "Bad Request: chat not found");
        const actions = ["typing", "upload_photo", "record_video", "upload_video", "upload_document", "find_location"];
        if (!actions.includes(String(params.action)))
          return refuse(400, "Bad Request: wrong parameter action in request");
        return ok(true);
      }
      case "getFile":
        return this.files.getFile(params);
      case "sendMessageDraft": {
        if (!this.draftsSupported) return refuse(404, "Not Found");
        const chat = this.chats.get(Number(params.chat_id));
        if (chat?.type !== "private") return refuse(400, "Bad Request: TEXTDRAFT_PEER_INVALID");
        if (typeof params.draft_id !== "number" || params.draft_id === 0)
          return refuse(400, "Bad Request: draft_id must be non-zero");
        const parsed = this.chats.parseText(params);
        if (!parsed.ok) return refuse(400, parsed.error);
        this.drafts.push({ token, chatId: chat.id, draftId: params.draft_id, text: parsed.text });
        return ok(true);
      }
      default:
        return refuse(404, "Not Found");
    }
  }
}
