import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type HeldResponse, HeldResponses } from "./held-responses.js";
import { slackSignatureHeaders } from "./slack-signing.js";
import { FakeSocketMode } from "./slack-socket.js";
import { type SlackEphemeral, SlackMessages, type SlackStoredMessage, type SlackUploadedFile } from "./slack-state.js";
import { parseParams, uploadedBytes, uploadedContent } from "./slack-request-body.js";
import { handleWebApi, type WebApiAnswer } from "./slack-web-api.js";

export type { SlackEphemeral, SlackStoredMessage, SlackUploadedFile } from "./slack-state.js";

/**
 * A fake Slack on 127.0.0.1: the Web API (form-encoded POSTs to `/api/<method>`, `{ ok, … }`
 * answers, `x-oauth-scopes` on every answer) with state (messages, threads, updates,
 * ephemerals, uploaded files, user groups), 429 injection with `Retry-After`, and delivery of
 * events and interactive payloads either signed over HTTP (to the service's `/slack/events`)
 * or over a Socket Mode WebSocket (`apps.connections.open` → `ws://…/socket`, `hello`,
 * envelopes, acks).
 */

export interface FakeSlackUser {
  id: string;
  name: string;
  realName?: string;
  displayName?: string;
  isBot?: boolean;
}

export interface FakeUsergroup {
  id: string;
  handle: string;
  users: string[];
}

export interface FakeSlackSetup {
  botToken: string;
  appToken?: string;
  signingSecret: string;
  teamId?: string;
  botUserId?: string;
  botId?: string;
  /** Scopes granted to the bot token (sent as `x-oauth-scopes`). */
  scopes?: string[];
  users?: FakeSlackUser[];
  usergroups?: FakeUsergroup[];
  /** Set: the app can be installed into more workspaces (`authorizeInstall`, `oauth.v2.access`). */
  oauthApp?: FakeOAuthApp;
}

export interface RecordedSlackCall {
  method: string;
  params: Record<string, unknown>;
  status: number;
  ok: boolean;
  /** The workspace whose bot token made the call (none: no token, or one Slack does not know). */
  team?: string;
}

/** A workspace the app is in: its bot there and the bot token that speaks for it. */
export interface FakeWorkspace {
  teamId: string;
  teamName: string;
  botToken: string;
  botUserId: string;
  botId: string;
}

/** The app's OAuth credentials (api.slack.com → Basic Information), for "Add to Slack". */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
}

/**
 * A fault the fake plays instead of an answer (docs/reliability.md, "How it is tested"): 429
 * with `Retry-After`, a 5xx, an HTTP 200 `{ ok: false, error }`, or a cut connection; for one
 * channel or any; before carrying the call out (Slack refused it) or after (Slack took it and
 * the answer was lost, so the caller cannot know).
 */
export interface InjectedSlackFailure {
  /** 429 (with `Retry-After`, the default), a 5xx, or 200 (`{ ok: false, error }`). */
  status?: number;
  retryAfterSeconds?: number;
  error?: string;
  /** Only calls about this channel (their `channel` or `channel_id`). */
  channel?: string;
  /** Carry the call out first, then answer with the failure (or cut): its outcome is unknown to the caller. */
  afterDoing?: boolean;
  /** Cut the connection instead of answering (ECONNRESET on the caller's side). */
  reset?: boolean;
}

export const defaultScopes = [
  "app_mentions:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "chat:write",
  "chat:write.customize",
  "files:read",
  "files:write",
  "usergroups:read",
  "users:read",
  "assistant:write",
  "commands",
];

/**
 * Where deliveries go: HTTP to one URL, the Socket Mode connection, or a function given the
 * signed request (the chaos harness picks a live process and retries as Slack does).
 */
export type Transport =
  | { kind: "http"; url: string }
  | { kind: "socket" }
  | { kind: "deliver"; deliver(request: SignedDelivery): Promise<Delivery> };

/** A signed HTTP delivery, ready to be POSTed to a `/slack/events` URL. */
export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

export class FakeSlack {
  readonly messages = new SlackMessages();
  readonly ephemerals: SlackEphemeral[] = [];
  /** Modals opened with `views.open`, in order. */
  readonly views: { id: string; triggerId: string; view: Record<string, unknown> }[] = [];
  readonly files: SlackUploadedFile[] = [];
  readonly calls: RecordedSlackCall[] = [];
  private readonly held = new HeldResponses();
  readonly socket: FakeSocketMode;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  scopes: string[];
  users: FakeSlackUser[];
  usergroups: FakeUsergroup[];
  /** Where events go; set by the test (HTTP to the service, or the socket). */
  transport: Transport = { kind: "socket" };
  /** When true, stream calls that carry chunks are refused (`feature_not_enabled`), as a workspace without them. */
  refuseTaskChunks = false;
  /** When true, every bot post comes back as a `message` event, as Slack does. */
  echoBotPosts = false;
  /** Called with every Web API call as it is answered, with its answer's body. */
  onCall: ((call: RecordedSlackCall, answer: Record<string, unknown>) => void) | undefined;
  readonly failures: { method: string; failure: InjectedSlackFailure; times: number }[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private nextEvent = 1;
  private nextTrigger = 1;
  /** Workspaces by team id: the first one is the setup's (its token is `setup.botToken`). */
  readonly workspaces = new Map<string, FakeWorkspace>();
  /** Codes given by the consent page, not yet exchanged, with the workspace they install into. */
  private readonly codes = new Map<string, { teamId: string; teamName: string; user: string; scopes: string[] }>();
  private nextCode = 1;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    readonly setup: FakeSlackSetup,
  ) {
    this.socket = new FakeSocketMode(server);
    this.teamId = setup.teamId ?? "T0FAKE";
    this.botUserId = setup.botUserId ?? "U0BOT";
    this.botId = setup.botId ?? "B0BOT";
    this.scopes = setup.scopes ?? [...defaultScopes];
    this.users = setup.users ?? [];
    this.usergroups = setup.usergroups ?? [];
    this.workspaces.set(this.teamId, {
      teamId: this.teamId,
      teamName: "Fake Team",
      botToken: setup.botToken,
      botUserId: this.botUserId,
      botId: this.botId,
    });
  }

  /** The workspace a bot token speaks for, if Slack knows the token. */
  workspaceOfToken(token: string): FakeWorkspace | undefined {
    return [...this.workspaces.values()].find((workspace) => workspace.botToken === token);
  }

  /**
   * A person in workspace `teamId` presses Allow on Slack's consent page for `scopes`, as the
   * install URL (`/oauth/v2/authorize?client_id=…&scope=…&state=…`) asked: Slack then sends the
   * browser back with a one-time code, returned here. A wrong client id is refused as Slack does.
   */
  authorizeInstall(input: { authorizeUrl: string; teamId: string; teamName?: string; user: string }): {
    code: string;
    state: string;
  } {
    const url = new URL(input.authorizeUrl);
    if (url.searchParams.get("client_id") !== this.setup.oauthApp?.clientId) throw new Error("invalid_client_id");
    const code = `code-${this.nextCode++}`;
    this.codes.set(code, {
      teamId: input.teamId,
      teamName: input.teamName ?? input.teamId,
      user: input.user,
      scopes: (url.searchParams.get("scope") ?? "").split(",").filter(Boolean),
    });
    return { code, state: url.searchParams.get("state") ?? "" };
  }

  /** `oauth.v2.access`: the client's id and secret and a code from the consent page → a bot token for that workspace. */
  exchangeCode(params: Record<string, unknown>, authorization: string): WebApiAnswer {
    const basic = /^Basic\s+(.+)$/i.exec(authorization)?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
    const clientId = basicId ?? params.client_id;
    const clientSecret = basicSecret ?? params.client_secret;
    const app = this.setup.oauthApp;
    const refuse = (error: string): WebApiAnswer => ({ status: 200, body: { ok: false, error } });
    if (!app || clientId !== app.clientId) return refuse("invalid_client_id");
    if (clientSecret !== app.clientSecret) return refuse("bad_client_secret");
    const grant = this.codes.get(String(params.code ?? ""));
    if (!grant) return refuse("invalid_code");
    this.codes.delete(String(params.code));
    const workspace: FakeWorkspace = {
      teamId: grant.teamId,
      teamName: grant.teamName,
      // Every install gets a token never given before.
      botToken: `xoxb-${grant.teamId}-${this.nextCode++}-installed`,
      botUserId: `U0BOT${grant.teamId}`,
      botId: `B0BOT${grant.teamId}`,
    };
    this.workspaces.set(grant.teamId, workspace);
    return {
      status: 200,
      body: {
        ok: true,
        app_id: "A0FAKE",
        authed_user: { id: grant.user },
        scope: grant.scopes.join(","),
        token_type: "bot",
        access_token: workspace.botToken,
        bot_user_id: workspace.botUserId,
        team: { id: workspace.teamId, name: workspace.teamName },
        enterprise: null,
        is_enterprise_install: false,
      },
    };
  }

  /**
   * A workspace removes the app: its token stops working at once, then Slack sends
   * `app_uninstalled` and `tokens_revoked` (bot) for that workspace.
   */
  async uninstall(teamId: string): Promise<Delivery[]> {
    const workspace = this.workspaces.get(teamId);
    if (!workspace) throw new Error(`no workspace ${teamId}`);
    this.workspaces.delete(teamId);
    const revoked = await this.deliverEvent(
      { type: "tokens_revoked", tokens: { bot: [workspace.botUserId] }, event_ts: this.messages.nextTs() },
      { team: workspace },
    );
    const uninstalled = await this.deliverEvent(
      { type: "app_uninstalled", event_ts: this.messages.nextTs() },
      { team: workspace },
    );
    return [revoked, uninstalled];
  }

  static async start(setup: FakeSlackSetup): Promise<FakeSlack> {
    let fake: FakeSlack | undefined;
    const server = createServer((request, response) => {
      void fake?.handle(request, response);
    });
    // A deep accept queue: a bench opens hundreds of connections at once while this process is
    // busy, and past Node's default of 511 the kernel drops them (the client sees ECONNRESET).
    await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeSlack(server, `http://127.0.0.1:${port}`, setup);
    return fake;
  }

  /** What `slackApiUrl` / `SLACK_API_URL` should be. */
  get apiUrl(): string {
    return `${this.origin}/api/`;
  }

  async close(): Promise<void> {
    await this.socket.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- test controls -------------------------------------------------------------------

  /** The next call of `method` (a Web API method name) is carried out and left unanswered. */
  holdNext(method: string): HeldResponse {
    return this.held.next("POST", new RegExp(`^${method.replaceAll(".", "\\.")}$`));
  }

  /** The next `times` calls of `method` fail with `failure`. */
  failNext(method: string, failure: InjectedSlackFailure, times = 1): void {
    this.failures.push({ method, failure, times });
  }

  /** The injected failure the next call of `method` about `params.channel` plays, used up by one. */
  private takeFailure(method: string, params: Record<string, unknown>): InjectedSlackFailure | undefined {
    const channel = params.channel ?? params.channel_id;
    const entry = this.failures.find(
      (each) =>
        each.method === method &&
        each.times > 0 &&
        (each.failure.channel === undefined || each.failure.channel === channel),
    );
    if (!entry) return undefined;
    entry.times -= 1;
    return entry.failure;
  }

  callsTo(method: string): RecordedSlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Messages of a channel (top level) or of one thread, root first; deleted ones left out. */
  messagesIn(channel: string, threadTs?: string): SlackStoredMessage[] {
    return this.messages.list(channel, threadTs);
  }

  /** Posts by the app (its bot user, personas included) in a channel or thread. */
  botPosts(channel: string, threadTs?: string): SlackStoredMessage[] {
    return this.messagesIn(channel, threadTs).filter((message) => message.bot_id === this.botId);
  }

  /** Waits for every delivery the fake started on its own (echoes). */
  async quiet(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** A person writes; the message is stored and delivered as a `message` event. */
  async userMessage(input: {
    channel: string;
    user: string;
    text: string;
    threadTs?: string;
    channelType?: "channel" | "group" | "im" | "mpim";
    /** Also deliver an `app_mention` event (the text mentions the bot user). */
    appMention?: boolean;
    /** The workspace it is written in (default the first). */
    teamId?: string;
  }): Promise<{ message: SlackStoredMessage; eventId: string; event: Record<string, unknown>; delivery: Delivery }> {
    const team = this.workspaceNamed(input.teamId);
    const message = this.messages.add({
      channel: input.channel,
      user: input.user,
      text: input.text,
      ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
    });
    const event: Record<string, unknown> = {
      type: "message",
      channel: input.channel,
      user: input.user,
      text: input.text,
      ts: message.ts,
      event_ts: message.ts,
      team: team.teamId,
      channel_type: input.channelType ?? "channel",
      ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
    };
    const eventId = this.newEventId();
    const delivery = await this.deliverEvent(event, { eventId, team });
    if (input.appMention) {
      await this.deliverEvent(
        { ...event, type: "app_mention", channel_type: undefined },
        { eventId: this.newEventId(), team },
      );
    }
    return { message, eventId, event, delivery };
  }

  /** A person opens the app's Messages tab (Agent view): `app_home_opened` with `tab: "messages"`. */
  async appHomeOpened(input: { user: string; channel: string; tab?: "messages" | "home" }): Promise<Delivery> {
    return this.deliverEvent({
      type: "app_home_opened",
      user: input.user,
      channel: input.channel,
      tab: input.tab ?? "messages",
      event_ts: this.messages.nextTs(),
    });
  }

  /** Files people shared, as `url_private_download` serves them (bot token required). */
  readonly sharedFiles = new Map<string, { name: string; bytes: Uint8Array }>();
  /** Requests for shared files, with the authorization each one carried. */
  readonly fileDownloads: { path: string; authorization: string }[] = [];

  /**
   * A person shares files with a message (`file_share`): each file gets an id and a
   * `url_private_download` on this server, which answers only with the bot token (as Slack does
   * for a token with `files:read`; anything else gets Slack's login page, not the file).
   */
  async userFileShare(input: {
    channel: string;
    user: string;
    text: string;
    files: { name: string; bytes: Uint8Array }[];
  }): Promise<{ message: SlackStoredMessage; delivery: Delivery }> {
    const message = this.messages.add({ channel: input.channel, user: input.user, text: input.text });
    const files = input.files.map((file) => {
      const id = `F${String(this.sharedFiles.size + 1).padStart(8, "0")}`;
      this.sharedFiles.set(id, file);
      const path = `/files-pri/${this.teamId}-${id}/download/${encodeURIComponent(file.name)}`;
      return {
        id,
        name: file.name,
        size: file.bytes.length,
        mimetype: "application/octet-stream",
        url_private: `${this.origin}/files-pri/${this.teamId}-${id}/${encodeURIComponent(file.name)}`,
        url_private_download: `${this.origin}${path}`,
      };
    });
    const event: Record<string, unknown> = {
      type: "message",
      subtype: "file_share",
      channel: input.channel,
      user: input.user,
      text: input.text,
      files,
      upload: false,
      ts: message.ts,
      event_ts: message.ts,
      team: this.teamId,
      channel_type: "channel",
    };
    const delivery = await this.deliverEvent(event);
    return { message, delivery };
  }

  private serveSharedFile(pathname: string, authorization: string, response: ServerResponse): boolean {
    const match = /^\/files-pri\/[^/]+-(F\d+)\/(?:download\/)?[^/]+$/.exec(pathname);
    if (!match) return false;
    this.fileDownloads.push({ path: pathname, authorization });
    const file = this.sharedFiles.get(match[1] ?? "");
    if (!file) {
      response.writeHead(404).end();
      return true;
    }
    if (!this.workspaceOfToken(authorization.replace(/^Bearer\s+/i, ""))) {
      response.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in to Slack</body></html>");
      return true;
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes.length });
    response.end(file.bytes);
    return true;
  }

  /** A workspace the app is in (the first one when none is named). */
  workspaceNamed(teamId: string | undefined): FakeWorkspace {
    const workspace = this.workspaces.get(teamId ?? this.teamId);
    if (!workspace) {
      // A workspace that never installed the app (or removed it): events still name it.
      return { teamId: teamId ?? this.teamId, teamName: "", botToken: "", botUserId: "U0NONE", botId: "B0NONE" };
    }
    return workspace;
  }

  newEventId(): string {
    return `Ev${String(this.nextEvent++).padStart(8, "0")}`;
  }

  /** Deliver an `event_callback` through the current transport. */
  async deliverEvent(
    event: Record<string, unknown>,
    options: {
      eventId?: string;
      retryNum?: number;
      signingSecret?: string;
      timestampSeconds?: number;
      /** The workspace it happens in (default the first). */
      team?: FakeWorkspace;
    } = {},
  ): Promise<Delivery> {
    const team = options.team ?? this.workspaceNamed(undefined);
    const body = {
      token: "verification-token-unused",
      team_id: team.teamId,
      api_app_id: "A0FAKE",
      event,
      type: "event_callback",
      event_id: options.eventId ?? this.newEventId(),
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: team.teamId, user_id: team.botUserId, is_bot: true }],
    };
    if (this.transport.kind === "socket") {
      const ack = await this.socket.send("events_api", body, {
        ...(options.retryNum === undefined ? {} : { retryAttempt: options.retryNum }),
      });
      return { status: 200, body: JSON.stringify(ack ?? {}) };
    }
    return this.post(JSON.stringify(body), "application/json", options);
  }

  /** A person presses a button of a message: a `block_actions` payload. */
  async press(input: {
    user: string;
    channel: string;
    messageTs: string;
    actionId: string;
    value: string;
    signingSecret?: string;
    /** The workspace the press happens in (default the first). */
    teamId?: string;
  }): Promise<Delivery> {
    const message = this.messages.find(input.channel, input.messageTs);
    const team = this.workspaceNamed(input.teamId);
    const payload = {
      type: "block_actions",
      team: { id: team.teamId, domain: "fake" },
      user: {
        id: input.user,
        username: this.userName(input.user),
        name: this.userName(input.user),
        team_id: team.teamId,
      },
      api_app_id: "A0FAKE",
      token: "verification-token-unused",
      container: {
        type: "message",
        message_ts: input.messageTs,
        channel_id: input.channel,
        is_ephemeral: false,
        ...(message?.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
      },
      trigger_id: `trigger-${this.nextTrigger++}`,
      channel: { id: input.channel, name: "release" },
      message: message
        ? {
            ts: message.ts,
            text: message.text,
            blocks: message.blocks ?? [],
            ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
          }
        : undefined,
      response_url: `${this.origin}/response/${input.messageTs}`,
      actions: [
        {
          type: "button",
          action_id: input.actionId,
          block_id: "approval",
          value: input.value,
          action_ts: `${Math.floor(Date.now() / 1000)}.000100`,
        },
      ],
    };
    if (this.transport.kind === "socket") {
      const ack = await this.socket.send("interactive", payload);
      return { status: 200, body: JSON.stringify(ack ?? {}) };
    }
    const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.post(
      form,
      "application/x-www-form-urlencoded",
      input.signingSecret === undefined ? {} : { signingSecret: input.signingSecret },
    );
  }

  /**
   * A person submits an opened modal (`view_submission`) with `value` typed into its one text
   * input; the delivery's body is the service's answer (`response_action: errors` keeps it open).
   */
  async submitView(input: { user: string; viewId: string; value: string }): Promise<Delivery> {
    const opened = this.views.find((each) => each.id === input.viewId);
    if (!opened) throw new Error(`no modal ${input.viewId}`);
    const blocks = (opened.view.blocks ?? []) as { block_id?: string; element?: { action_id?: string } }[];
    const values: Record<string, Record<string, { type: string; value: string }>> = {};
    for (const block of blocks) {
      if (block.block_id === undefined || block.element?.action_id === undefined) continue;
      values[block.block_id] = { [block.element.action_id]: { type: "plain_text_input", value: input.value } };
    }
    const payload = {
      type: "view_submission",
      team: { id: this.teamId, domain: "fake" },
      user: {
        id: input.user,
        username: this.userName(input.user),
        name: this.userName(input.user),
        team_id: this.teamId,
      },
      api_app_id: "A0FAKE",
      token: "verification-token-unused",
      trigger_id: `trigger-${this.nextTrigger++}`,
      view: {
        ...opened.view,
        id: opened.id,
        team_id: this.teamId,
        state: { values },
        hash: "h1",
      },
    };
    if (this.transport.kind === "socket") {
      const ack = await this.socket.send("interactive", payload);
      return { status: 200, body: JSON.stringify(ack ?? {}) };
    }
    return this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      "application/x-www-form-urlencoded",
    );
  }

  /** A person runs a slash command in a channel (`/roundtable stop`): HTTP form fields, or a Socket Mode envelope. */
  async slashCommand(input: { user: string; channel: string; command?: string; text: string }): Promise<Delivery> {
    const fields = {
      token: "verification-token-unused",
      team_id: this.teamId,
      team_domain: "fake",
      channel_id: input.channel,
      channel_name: "release",
      user_id: input.user,
      user_name: this.userName(input.user),
      command: input.command ?? "/roundtable",
      text: input.text,
      api_app_id: "A0FAKE",
      response_url: `${this.origin}/commands/response`,
      trigger_id: `trigger-${this.nextTrigger++}`,
    };
    if (this.transport.kind === "socket") {
      const ack = await this.socket.send("slash_commands", fields);
      return { status: 200, body: JSON.stringify(ack ?? {}) };
    }
    return this.post(new URLSearchParams(fields).toString(), "application/x-www-form-urlencoded");
  }

  /** POST a raw body to the HTTP events URL, signed unless told otherwise. */
  async post(
    body: string,
    contentType: string,
    options: { retryNum?: number; signingSecret?: string; timestampSeconds?: number; unsigned?: boolean } = {},
  ): Promise<Delivery> {
    if (this.transport.kind === "socket") throw new Error("HTTP delivery needs transport http or deliver");
    const headers: Record<string, string> = {
      "content-type": contentType,
      ...(options.unsigned
        ? {}
        : slackSignatureHeaders(options.signingSecret ?? this.setup.signingSecret, body, options.timestampSeconds)),
      ...(options.retryNum === undefined
        ? {}
        : { "x-slack-retry-num": String(options.retryNum), "x-slack-retry-reason": "http_timeout" }),
    };
    if (this.transport.kind === "deliver") return this.transport.deliver({ body, headers });
    const response = await fetch(this.transport.url, { method: "POST", headers, body });
    return { status: response.status, body: await response.text() };
  }

  userName(id: string): string {
    return this.users.find((user) => user.id === id)?.name ?? id.toLowerCase();
  }

  /** Start an echo delivery of a bot post (not awaited by the caller; see {@link quiet}). */
  echo(message: SlackStoredMessage): void {
    if (!this.echoBotPosts) return;
    const team = this.workspaceNamed(message.team);
    const event: Record<string, unknown> = {
      type: "message",
      ...(message.username === undefined ? {} : { subtype: "bot_message", username: message.username }),
      channel: message.channel,
      user: message.user ?? this.botUserId,
      bot_id: message.bot_id ?? this.botId,
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      team: team.teamId,
      channel_type: "channel",
      ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    };
    const delivery = this.deliverEvent(event, { team }).catch(() => undefined);
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", this.origin);
    if (
      request.method === "GET" &&
      this.serveSharedFile(url.pathname, String(request.headers.authorization ?? ""), response)
    )
      return;
    if (url.pathname.startsWith("/upload/")) {
      const file = this.files.find((each) => each.id === url.pathname.slice("/upload/".length));
      if (file) {
        file.content = uploadedContent(raw, String(request.headers["content-type"] ?? ""));
        file.bytes = uploadedBytes(Buffer.concat(chunks), String(request.headers["content-type"] ?? ""));
      }
      response
        .writeHead(file ? 200 : 404, { "content-type": "text/plain" })
        .end(file ? `OK - ${raw.length}` : "no such upload");
      return;
    }
    if (!url.pathname.startsWith("/api/")) {
      response.writeHead(404).end();
      return;
    }
    const method = url.pathname.slice("/api/".length);
    const params = parseParams(raw, String(request.headers["content-type"] ?? ""));
    for (const [key, value] of url.searchParams) params[key] = value;
    const failure = this.takeFailure(method, params);
    const authorization = String(request.headers.authorization ?? "");
    const team = this.workspaceOfToken(authorization.replace(/^Bearer\s+/i, "") || String(params.token ?? ""))?.teamId;
    const teamOf = team === undefined ? {} : { team };
    // Carried out unless the fault refuses it first; answered with the fault if there is one.
    const done = failure && !failure.afterDoing ? undefined : handleWebApi(this, method, params, authorization);
    const answer = failure ? failureAnswer(failure) : (done ?? failureAnswer({ status: 500 }));
    if (failure?.reset) {
      this.calls.push({ method, params, status: 0, ok: false, ...teamOf });
      request.socket.destroy();
      return;
    }
    const call = {
      method,
      params,
      status: answer.status,
      ok: answer.status === 200 && answer.body.ok === true,
      ...teamOf,
    };
    this.calls.push(call);
    const reply = () => {
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "x-oauth-scopes": this.scopes.join(","),
        ...(answer.retryAfter === undefined ? {} : { "retry-after": String(answer.retryAfter) }),
      });
      response.end(JSON.stringify(answer.body));
      this.onCall?.(call, answer.body);
    };
    const held = this.held.take("POST", method);
    if (held) held.hold(response, reply);
    else reply();
  }
}

function failureAnswer(failure: InjectedSlackFailure): WebApiAnswer {
  const { status = 429, retryAfterSeconds = 1, error = status === 429 ? "ratelimited" : "internal_error" } = failure;
  return status === 429
    ? { status: 429, body: { ok: false, error }, retryAfter: retryAfterSeconds }
    : { status, body: { ok: false, error } };
}

export interface Delivery {
  status: number;
  body: string;
}
