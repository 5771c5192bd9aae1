import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";

/** Capability: show text to one person only (Slack ephemeral, Discord ephemeral reply or DM). */
export interface PrivateReplyChannel {
  replyPrivately(chat: ChatRef, userId: string, text: string): Promise<void>;
}

export function canReplyPrivately<Adapter extends object>(adapter: Adapter): adapter is Adapter & PrivateReplyChannel {
  return typeof (adapter as Partial<PrivateReplyChannel>).replyPrivately === "function";
}

/** An HTTP route a channel serves on the service's port (webhooks, interactivity). */
export interface WebhookRoute {
  /** Exact path, e.g. `/telegram/webhook`. */
  path: string;
  /**
   * Checked before any of the body is read (a secret carried in a header): a refusal (its
   * status and why) is answered at once and the body is never read.
   */
  refuseEarly?(request: IncomingMessage): { status: number; reason: string } | undefined;
  /** This route's own cap on a request body (an upload), instead of the server's. */
  maxBodyBytes?: number;
  /** This request's limits while its body is read (an upload's time limit and per-client cap). */
  bodyLimits?(request: IncomingMessage): RequestBodyLimits;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

/**
 * What a route's body may do while it is read (the HTTP server enforces it on the stream; a
 * body is read only when the route reads it, so access is decided from the headers first).
 */
export interface RequestBodyLimits {
  maxBytes: number;
  /** The whole body must arrive within this time once the route began reading it (else 408). */
  timeoutMs?: number;
  /** Asked before each chunk is taken (a per-client cap on bytes in flight); a refusal ends the read. */
  admit?(bytes: number): { status: 429; reason: string } | undefined;
  /** Called once when the read ends (done, refused or cut) with the bytes it admitted. */
  release?(bytes: number): void;
}

/** Whether a request says it carries a body (a length above 0, or a chunked body). */
export function requestHasBody(request: Pick<IncomingMessage, "headers">): boolean {
  const declared = request.headers["content-length"];
  if (declared !== undefined) return Number(declared) !== 0;
  return request.headers["transfer-encoding"] !== undefined;
}

/** Capability: the channel receives HTTP requests on the service's port. */
export interface WebhookChannel {
  webhookRoutes(): WebhookRoute[];
}

export function isWebhookChannel<Adapter extends object>(adapter: Adapter): adapter is Adapter & WebhookChannel {
  return typeof (adapter as Partial<WebhookChannel>).webhookRoutes === "function";
}

/**
 * Capability: this adapter is one agent's own connection (its own bot or app) and posts only
 * that agent's messages; the platform's main adapter (without this) posts everything else.
 */
export interface AgentIdentityChannel {
  readonly agent: string;
}

export function isAgentIdentityChannel<Adapter extends object>(
  adapter: Adapter,
): adapter is Adapter & AgentIdentityChannel {
  return typeof (adapter as Partial<AgentIdentityChannel>).agent === "string";
}

/** What an agent is busy with, for a status line ("alice is thinking…", "alice is running shell_cmd…"). */
export type WorkingActivity = { kind: "thinking" } | { kind: "tool"; tool: string };

/**
 * Capability: show that an agent is working in a chat (Telegram and Discord typing, Slack's
 * assistant thread status, the web page's status line). The world owns the lifecycle
 * (`src/world/working-status.ts`): it calls `showWorking` when work starts, again every
 * `workingRenewMs` while it lasts, and `clearWorking` when it is over. Both are best effort:
 * the world logs a failure at debug and never waits for them before going on.
 */
export interface WorkingStatusChannel {
  /** How long one `showWorking` stays visible on the platform; undefined: until cleared. */
  readonly workingRenewMs: number | undefined;
  showWorking(chat: ChatRef, author: Author, activity: WorkingActivity): Promise<void>;
  /** Ends what `showWorking` shows, where the platform does not end it by itself. */
  clearWorking(chat: ChatRef, author: Author): Promise<void>;
}

export function canShowWorking<Adapter extends object>(adapter: Adapter): adapter is Adapter & WorkingStatusChannel {
  return typeof (adapter as Partial<WorkingStatusChannel>).showWorking === "function";
}

/** Where one tool call stands: running, done, failed, or waiting for its approval card. */
export interface ToolProgress {
  /** The tool call's id: every state of one call is shown in one place. */
  callId: string;
  tool: string;
  state: "running" | "done" | "failed" | "waiting";
}

/**
 * Capability: show a tool call's progress inside the agent's answer (Slack's task chunks with
 * `stream: native`). Best effort, as {@link WorkingStatusChannel}: the world never waits for it,
 * and a platform that refuses shows what it shows without it.
 */
export interface ToolProgressChannel {
  showToolProgress(chat: ChatRef, author: Author, progress: ToolProgress): Promise<void>;
}

export function canShowToolProgress<Adapter extends object>(
  adapter: Adapter,
): adapter is Adapter & ToolProgressChannel {
  return typeof (adapter as Partial<ToolProgressChannel>).showToolProgress === "function";
}

/** "alice is thinking…", "alice is running shell_cmd…": the same words on every platform. */
export function workingText(agent: string, activity: WorkingActivity): string {
  return activity.kind === "thinking" ? `${agent} is thinking…` : `${agent} is running ${activity.tool}…`;
}

/**
 * Capability: the roles a person has in a chat (Discord roles, Slack user groups, `admin` for
 * chat administrators), for `role:<name>` and `admins` in approver and member lists.
 */
export interface UserRolesChannel {
  rolesOf(chat: ChatRef, userId: string): Promise<string[]>;
}

export function isUserRolesChannel<Adapter extends object>(adapter: Adapter): adapter is Adapter & UserRolesChannel {
  return typeof (adapter as Partial<UserRolesChannel>).rolesOf === "function";
}

/** Capability: a channel whose posted messages have addresses people can open (a card's link). */
export interface MessageLinks {
  /** The link to a posted message, or undefined where this chat has none (a private chat). */
  messageLink(chat: ChatRef, platformMessageId: string): string | undefined;
}

export function hasMessageLinks<Adapter extends object>(adapter: Adapter): adapter is Adapter & MessageLinks {
  return typeof (adapter as Partial<MessageLinks>).messageLink === "function";
}

/**
 * Capability: a chat named in the config by its id alone, completed as the channel's own
 * messages name it (Slack adds its workspace), so a schedule's chat is the chat people write in.
 */
export interface ChatResolvingChannel {
  resolveChat(chat: ChatRef): ChatRef;
}

export function isChatResolvingChannel<Adapter extends object>(
  adapter: Adapter,
): adapter is Adapter & ChatResolvingChannel {
  return typeof (adapter as Partial<ChatResolvingChannel>).resolveChat === "function";
}

/**
 * Capability: the bot's direct chat with one person, for approval cards routed to approvers'
 * DMs (docs/approvals.md, "Where approval cards go"): Slack `conversations.open`, a Discord DM
 * channel, a Telegram private chat (whose id is the person's; whether the bot may write there
 * shows only when a post is refused).
 */
export interface DirectChatChannel {
  /** The direct chat with `userId`; throws when the platform will not open one. */
  openDirectChat(userId: string): Promise<ChatRef>;
  /** Whether a failed post means the person cannot be reached there (blocked, never started the bot, no such user). */
  cannotReach(error: unknown): boolean;
}

export function canOpenDirectChat<Adapter extends object>(adapter: Adapter): adapter is Adapter & DirectChatChannel {
  return typeof (adapter as Partial<DirectChatChannel>).openDirectChat === "function";
}
