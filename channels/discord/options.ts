import type { ChannelClock, ChatRef, SingletonLock } from "../../src/world/channel-adapter.js";
import type { Logger } from "../../src/log/logger.js";

/** How an agent appears on Discord. */
export interface DiscordAgentIdentity {
  /** The agent's name in the world (what `@name` addresses). */
  name: string;
  /** The name its posts carry (`agents[].displayName`, default the name). */
  displayName?: string;
  /** The avatar its webhook posts carry (`agents[].avatarUrl`). */
  avatarUrl?: string;
  /** The agent's own bot token, when it posts as its own Discord bot. */
  token?: string;
}

/** Everything the Discord adapter needs; the service builds it from config and environment. */
export interface DiscordAdapterOptions {
  /** The main bot's token (`DISCORD_BOT_TOKEN`). Only its gateway is read. */
  token: string;
  /** Another API base (`DISCORD_API_URL`), e.g. `http://127.0.0.1:8080/api`; discord.js adds `/v10`. */
  apiUrl?: string;
  /** Every agent of every world, so that mentions and replies can be read as agent names. */
  agents?: DiscordAgentIdentity[];
  logger: Logger;
  /** At most one edit of a streamed message per this many ms (default 1000). */
  editIntervalMs?: number;
  /** How often typing is triggered again while an agent works (default 8 s; Discord shows it ~10 s). */
  typingRenewMs?: number;
  /** The name of the channel webhooks the app creates and finds again (default `Roundtable`). */
  webhookName?: string;
  /** How long ClientReady may take before start fails (default 30 s). */
  readyTimeoutMs?: number;
  clock?: ChannelClock;
  /**
   * Discord allows one gateway session per bot: with several processes on one database, only
   * the holder of this lock connects; the others post (REST) and wait to take over.
   */
  gatewayLock?: SingletonLock;
  /** Whether posts in a chat may show link previews (its world's `linkPreviews`; default never). */
  linkPreviews?: (chat: ChatRef) => boolean;
}
