import type { ChannelClock, ChatRef, SingletonLock } from "../../src/world/channel-adapter.js";
import type { Logger } from "../../src/log/logger.js";

/** An agent that posts as its own Telegram bot instead of the main bot with a bold name. */
export interface TelegramAgentBot {
  agent: string;
  token: string;
}

/** How often a live (streamed) message may change, per chat. */
export interface TelegramThrottleOptions {
  /** Private chats: at most one edit or draft per this many ms (default 1000). */
  privateIntervalMs?: number;
  /** Groups and supergroups: at most one edit per this many ms (default 3000). */
  groupIntervalMs?: number;
}

/** How the API client retries refused calls. */
export interface TelegramRetryOptions {
  /** A `retry_after` longer than this is not waited for: the call fails (default 60). */
  maxDelaySeconds?: number;
  /** Retries of one call after 429 or 5xx (default 5). */
  maxRetryAttempts?: number;
}

/** Everything the Telegram adapter needs; the service builds it from config and environment. */
export interface TelegramAdapterOptions {
  /** The main bot's token (`TELEGRAM_BOT_TOKEN`). Its updates are the only ones read. */
  token: string;
  /** Another Bot API server (`TELEGRAM_API_ROOT`), without a trailing slash. */
  apiRoot?: string;
  /**
   * Public HTTPS address for webhooks (`TELEGRAM_WEBHOOK_URL`). Set → webhook on the service's
   * port at `/telegram/webhook`; unset → long polling. An address with no path gets
   * `/telegram/webhook` appended.
   */
  webhookUrl?: string;
  /** Secret token Telegram sends with every webhook request; derived from the token if unset. */
  webhookSecret?: string;
  /** Agents that post as their own bots (send only; their updates are never read). */
  agentBots?: TelegramAgentBot[];
  /** Every agent name, so that `@Alice` or an agent bot's `@alice_bot` reads as `@alice`. */
  agentNames?: string[];
  logger: Logger;
  throttle?: TelegramThrottleOptions;
  retry?: TelegramRetryOptions;
  /** How often `typing` is sent again while an agent works (default 4 s; Telegram shows it ~5 s). */
  typingRenewMs?: number;
  /** Use `sendMessageDraft` in private chats when the server offers it (default true). */
  drafts?: boolean;
  /**
   * With several service processes on one database: long polling runs only in the process that
   * holds this lock (`telegram:<bot id>`); the others wait and take over when it dies.
   */
  pollingLock?: SingletonLock;
  /** Whether posts in a chat may show link previews (its world's `linkPreviews`; default never). */
  linkPreviews?: (chat: ChatRef) => boolean;
  /** Long-poll timeout in seconds for `getUpdates` (default 30). */
  pollingTimeoutSeconds?: number;
  /** Attempts to hand one update to the world before it is logged and skipped (default 5). */
  maxDeliveryAttempts?: number;
  clock?: ChannelClock;
}
