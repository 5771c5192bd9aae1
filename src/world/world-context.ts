import type { AgentConfig, WorldConfig } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { Store } from "../storage/store.js";
import type { ChannelAdapter } from "./channel-adapter.js";
import type { ChatRef, Platform } from "./chat-ref.js";
import type { WorkQueue } from "./work-queue.js";

/** Which world a chat belongs to, and the worlds by name. */
export interface WorldDirectory {
  /** The world a chat is bound to (config `channels.<platform>.chats`, `*` allowed), if any. */
  worldFor(chat: ChatRef): WorldConfig | undefined;
  get(name: string): WorldConfig | undefined;
}

/** The channel adapter serving each platform. */
export type ChannelRegistry = ReadonlyMap<Platform, ChannelAdapter>;

/**
 * What the agents side does with the steps of a turn. The world queues these steps in the
 * chat's queue; the runner (src/agents) calls providers and tools.
 */
export interface TurnRunner {
  step(turnId: string, step: number): Promise<void>;
  runTool(toolCallId: string): Promise<void>;
  approvalDecided(approvalId: string): Promise<void>;
  approvalExpire(approvalId: string): Promise<void>;
}

/** Everything the world engine works with, injected. */
export interface WorldContext {
  store: Store;
  queue: WorkQueue;
  logger: Logger;
  worlds: WorldDirectory;
  channels: ChannelRegistry;
  /** Agents by name, from config. */
  agents: ReadonlyMap<string, AgentConfig>;
  /**
   * The stable hash of a call (tool and canonical arguments) that session grants are keyed by;
   * undefined when the arguments do not parse. Supplied by the tool side.
   */
  hashCall: (tool: string, argumentsJson: string) => string | undefined;
  clock: () => Date;
}
