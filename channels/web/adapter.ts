import { randomBytes } from "node:crypto";
import {
  type ApprovalCard,
  type ApprovalOutcome,
  type Author,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelPrimitives,
  chatKey,
  type ChatRef,
  type InboundSink,
  type LoginSessionStore,
  type OutboundText,
  type PrivateReplyChannel,
  type SendPartOptions,
  type StreamMode,
  type WebhookChannel,
  type WebhookRoute,
  type WorkingActivity,
  type WorkingStatusChannel,
  workingText,
} from "../../src/world/channel-adapter.js";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import type { WebAuth } from "./access.js";
import type { ChatPageWorld } from "./chat-page.js";
import { WebCredentials } from "./credentials.js";
import { EventHub, type EventHubLimits } from "./event-hub.js";
import { LoginAttempts } from "./login-attempts.js";
import { memoryLoginSessions, WebSessions } from "./sessions.js";
import { TrustedProxies } from "./trusted-proxies.js";
import type { OperatorSource } from "./operator-snapshot.js";
import { type AgentIdentity, cardItem, decidedCard, toWebAuthor, toWebCard } from "./render.js";
import { type WebFileSource, webFileLink } from "./file-route.js";
import type { WebAuthor, WebCard, WebFileLink, WebHistorySource, WebItem } from "./web-items.js";
import { createWebRoutes } from "./web-routes.js";

export interface WebAdapterOptions {
  /** The worlds that get a chat page, in the config's order (the first is `/`). */
  worlds: ChatPageWorld[];
  /** How agents appear (display name, avatar). */
  agents: AgentIdentity[];
  /** The shared token (`WEB_CONSOLE_TOKEN`, or the generated one): every request needs a login. */
  token: string;
  /** `channels.web.users`: each person's own token; their name then comes from the login. */
  users?: Readonly<Record<string, string>>;
  /**
   * `web.trustedProxies`: reverse proxies (addresses, CIDR ranges) whose `X-Forwarded-For` names
   * the client for the login limit, the logs and the cookie's `Secure`; none: the TCP peer is the client.
   */
  trustedProxies?: readonly string[];
  /** Where logins are kept (the database: they survive restarts and are seen by every process). */
  sessions?: LoginSessionStore;
  /** Caps on the event streams (per chat, in all, unsent bytes per client). */
  streams?: EventHubLimits;
  logger: Logger;
  /** The chat's stored history for a page that opens (empty without one). */
  history?: WebHistorySource;
  /** What the operator view shows (absent: the view says so). */
  operator?: OperatorSource;
  /**
   * Who of `channels.web.users` may open `/operator` (the people named under a world's
   * `approvers.web`, or everyone with `"*"` there); absent: every login (the shared token alone).
   * Shared-token holders always may: that token is the operator's.
   */
  operators?: { everyone: boolean; names: ReadonlySet<string> };
  /** The least time between two draft updates sent to a page. */
  streamIntervalMs?: number;
  /** `files.maxMessageBytes`: all files of one upload together (default 50 MiB). */
  maxUploadBytes?: number;
  /** Where `GET /chat/file` reads a message's file (the store); without it the route is not mounted. */
  files?: WebFileSource;
}

/** One item of the page's timeline as the world posts it: who wrote it and its text. */
export interface WebPart {
  author: WebAuthor;
  text: string;
  /** The message's files, linked (the world gives them to a channel that does not post files). */
  files?: WebFileLink[];
}

/**
 * The browser console: a chat page per world whose answers stream in over Server-Sent Events,
 * approval cards with the three choices, and the operator view, all on the service's own port.
 * Posting is the world's (`src/world/delivery/`): a part is one timeline item, a `live` part a
 * draft item, the same id settled as a message item.
 */
export class WebAdapter
  implements ChannelAdapter, ChannelPrimitives<WebPart>, PrivateReplyChannel, WebhookChannel, WorkingStatusChannel
{
  readonly id = "web";
  readonly platform = "web" as const;
  readonly capabilities: ChannelCapabilities = {
    canEdit: true,
    identifiesClickers: true,
    // A browser chat is opened on one world's page: the world is part of the chat.
    chatsNameTheirWorld: true,
  };
  readonly hub: EventHub;
  readonly auth: WebAuth;
  readonly agents: ReadonlyMap<string, AgentIdentity>;
  private sink: InboundSink | undefined;
  /** Cards shown since start, so an outcome can redraw the whole card. */
  private readonly cards = new Map<string, WebCard>();
  private lastReceivedAt: Date | undefined;

  constructor(readonly options: WebAdapterOptions) {
    this.hub = new EventHub(options.logger, options.streams);
    const credentials = new WebCredentials(options.token, options.users);
    this.auth = {
      credentials,
      sessions: new WebSessions(options.sessions ?? memoryLoginSessions(), credentials),
      attempts: new LoginAttempts(),
      proxies: new TrustedProxies(options.trustedProxies),
    };
    this.agents = new Map(options.agents.map((agent) => [agent.name, agent]));
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = undefined;
    this.hub.close();
  }

  isConnected(): boolean {
    return this.sink !== undefined;
  }

  /** The world's side of the pages, once started. */
  inbound(): InboundSink | undefined {
    return this.sink;
  }

  /** When the last message came from a page. */
  lastReceived(): Date | undefined {
    return this.lastReceivedAt;
  }

  noteReceived(at: Date): void {
    this.lastReceivedAt = at;
  }

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<WebPart[]> {
    const files = message.files?.map((file) => webFileLink(file.messageId, file.name, file.mediaType));
    return [{ author: toWebAuthor(message.author, this.agents), text: message.text, ...(files ? { files } : {}) }];
  }

  samePart(left: WebPart, right: WebPart): boolean {
    const same = (one: unknown, other: unknown) => JSON.stringify(one) === JSON.stringify(other);
    return left.text === right.text && same(left.author, right.author) && same(left.files, right.files);
  }

  async sendPart(chat: ChatRef, _author: Author, part: WebPart, options: SendPartOptions = {}): Promise<string> {
    const id = newId(options.live ? "s" : "m");
    this.show(chat, id, part, options.live ?? false);
    return id;
  }

  /** A live part shows as a draft item; the same id settled replaces it with the message. */
  async editPart(chat: ChatRef, _author: Author, id: string, part: WebPart, options: { live?: boolean } = {}) {
    this.show(chat, id, part, options.live ?? false);
    return "edited" as const;
  }

  async deletePart(chat: ChatRef, _author: Author, id: string): Promise<void> {
    this.hub.publish(chatKey(chat), { type: "removed", id });
  }

  async sendCard(chat: ChatRef, card: ApprovalCard): Promise<{ id: string }> {
    const webCard = toWebCard(card, this.agents);
    this.cards.set(card.approvalId, webCard);
    this.publish(chat, cardItem(webCard, new Date()));
    return { id: card.approvalId };
  }

  /** A pending card drawn again (a quorum's progress, an escalation): the page replaces it by id. */
  async redrawCard(chat: ChatRef, _id: string, card: ApprovalCard): Promise<"edited"> {
    const webCard = toWebCard(card, this.agents);
    this.cards.set(card.approvalId, webCard);
    this.publish(chat, cardItem(webCard, new Date()));
    return "edited";
  }

  /** The card is redrawn whole with its outcome (a page always can). */
  async editCard(chat: ChatRef, _id: string, outcome: ApprovalOutcome): Promise<"edited"> {
    const webCard = decidedCard(outcome, this.cards.get(outcome.approvalId));
    this.cards.delete(outcome.approvalId);
    this.publish(chat, cardItem(webCard, outcome.at));
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<WebPart> {
    const author = toWebAuthor({ kind: "system", id: "roundtable", name: "roundtable" }, this.agents);
    return { author, text: `${outcome.tool} (${outcome.shortId}): ${outcome.state}` };
  }

  /** Drafts stream to the pages, one update per `streamIntervalMs` (50 ms by default). */
  streamMode(): StreamMode<WebPart> {
    return { kind: "edit", intervalMs: this.options.streamIntervalMs ?? 50, liveControls: true };
  }

  private show(chat: ChatRef, id: string, part: WebPart, live: boolean): void {
    this.publish(
      chat,
      live
        ? { kind: "draft", id, author: part.author, text: part.text }
        : {
            kind: "message",
            id,
            author: part.author,
            text: part.text,
            at: new Date().toISOString(),
            ...(part.files ? { files: part.files } : {}),
          },
    );
  }

  /**
   * Show `text` only on the pages opened under the name `userId` (a page's name is its login's
   * person, or the label a shared-token holder typed). With no such page open it throws, so the world tells the chat instead.
   */
  async replyPrivately(chat: ChatRef, userId: string, text: string): Promise<void> {
    const reached = this.hub.publishTo(chatKey(chat), userId, {
      type: "item",
      item: {
        kind: "message",
        id: newId("p"),
        author: { kind: "system", name: "roundtable", displayName: "roundtable" },
        text,
        at: new Date().toISOString(),
        private: true,
      },
    });
    if (reached === 0) {
      throw new PlatformApiError(`no web page of ${userId} is open in this chat`, { method: "replyPrivately" });
    }
  }

  webhookRoutes(): WebhookRoute[] {
    return createWebRoutes(this);
  }

  /** The page's status line stays until cleared. */
  readonly workingRenewMs = undefined;

  /** "alice is thinking…" on the chat's pages, under the timeline. */
  async showWorking(chat: ChatRef, author: Author, activity: WorkingActivity): Promise<void> {
    const text = workingText(author.displayName ?? author.name, activity);
    this.hub.publish(chatKey(chat), { type: "working", agent: author.name, text });
  }

  async clearWorking(chat: ChatRef, author: Author): Promise<void> {
    this.hub.publish(chatKey(chat), { type: "working", agent: author.name, text: "" });
  }

  /** Show an item on every page of the chat. */
  publish(chat: ChatRef, item: WebItem): void {
    this.hub.publish(chatKey(chat), { type: "item", item });
  }
}

function newId(prefix: string): string {
  return `${prefix}-${randomBytes(9).toString("base64url")}`;
}
