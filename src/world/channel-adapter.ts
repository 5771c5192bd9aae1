import type { ApprovalCard, ApprovalOutcome } from "./approval-types.js";
import type { ChatRef, Platform } from "./chat-ref.js";
import type { InboundSink } from "./inbound.js";
import type { Author } from "./message.js";

/** A message the world asks a channel to post. `text` is Markdown; the channel renders it. */
export interface OutboundText {
  author: Author;
  text: string;
  /** Platform message id to reply to, when the platform threads replies. */
  replyTo?: string;
}

/** Where a posted message landed: one platform id per part (long texts are split). */
export interface SentRef {
  ids: string[];
}

/**
 * One platform connection. Every adapter has these few members; optional capabilities are
 * the small interfaces below, found with their type guards.
 */
export interface ChannelAdapter {
  readonly platform: Platform;
  /** Connect and begin handing inbound messages and clicks to `sink`. */
  start(sink: InboundSink): Promise<void>;
  /** Stop taking input and close connections. */
  stop(): Promise<void>;
  /** For `/readyz`. */
  isConnected(): boolean;
  postMessage(chat: ChatRef, message: OutboundText): Promise<SentRef>;
  /** Post an approval card with its three choices. */
  postApprovalCard(chat: ChatRef, card: ApprovalCard): Promise<SentRef>;
  /** Show the outcome on the card and remove its buttons. */
  updateApprovalCard(chat: ChatRef, sent: SentRef, outcome: ApprovalOutcome): Promise<void>;
}

/** A live message that grows while a model streams. The adapter throttles edits itself. */
export interface MessageStream {
  /** The whole text so far (not a delta). Cheap to call often. */
  update(textSoFar: string): void;
  /** Settle the final text (split if long); returns where it landed. */
  finish(finalText: string): Promise<SentRef>;
  /** Remove or abandon the draft (the turn failed). */
  abort(): Promise<void>;
}

/** Capability: show an answer while it is being written (edits or native drafts). */
export interface StreamingChannel {
  openStream(chat: ChatRef, author: Author): Promise<MessageStream>;
}

export function isStreamingChannel(adapter: ChannelAdapter): adapter is ChannelAdapter & StreamingChannel {
  return typeof (adapter as Partial<StreamingChannel>).openStream === "function";
}

/** An HTTP route a channel serves on the service's port (webhooks, interactivity). */
export interface WebhookRoute {
  /** Exact path, e.g. `/telegram/webhook`. */
  path: string;
  handle(request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse): Promise<void>;
}

/** Capability: the channel receives HTTP requests on the service's port. */
export interface WebhookChannel {
  webhookRoutes(): WebhookRoute[];
}

export function isWebhookChannel(adapter: ChannelAdapter): adapter is ChannelAdapter & WebhookChannel {
  return typeof (adapter as Partial<WebhookChannel>).webhookRoutes === "function";
}
