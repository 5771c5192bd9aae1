import type { Logger } from "../log/logger.js";
import type { InboundFiles } from "./files/inbound-files.js";
import type { Store } from "./store.js";
import type { ChannelRegistry } from "./channel/channel-registry.js";
import type { ChatRef } from "./chat-ref.js";
import type { WorkQueue } from "./work-queue.js";
import type { StepSlots } from "./queue/step-slots.js";
import type { AgentSettings, WorldSettings } from "./world-settings.js";
import type { EventPolicy } from "./policy/event-policy.js";
import type { EditCheck } from "./stores/denials-and-edits.js";

/** Which world a chat belongs to, and the worlds by name. */
export interface WorldDirectory {
  /** The world a chat is bound to (its platform's chat bindings, `*` allowed), if any. */
  worldFor(chat: ChatRef): WorldSettings | undefined;
  get(name: string): WorldSettings | undefined;
  /**
   * Whether the owner bound this chat to its world by its own id (not through `*` or the
   * default catch-all). Only there do `admins` and `role:` count: whoever creates a group or
   * a server is its admin and can name a role anything (docs/architecture.md, "Who may act").
   * Chats that name their world (console, web) are the operator's own and count as bound.
   */
  bindsById(chat: ChatRef): boolean;
}

/**
 * What the agents side does with the steps of a turn. The world queues these steps in the
 * chat's queue; the runner (src/agents) calls providers and tools.
 */
export interface TurnRunner {
  /**
   * `created`: the turn was created by the job that runs this step (its first step): nothing of
   * it can have run before, so no look for what an earlier run left (a draft) is needed.
   */
  step(turnId: string, step: number, options?: { created?: boolean }): Promise<void>;
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
  /** Agents by name: their identity in chats and turn limits. */
  agents: ReadonlyMap<string, AgentSettings>;
  /**
   * The stable hash of a call (tool and canonical arguments) that session grants are keyed by;
   * undefined when the arguments do not parse. Supplied by the tool side.
   */
  hashCall: (tool: string, argumentsJson: string) => string | undefined;
  /** A call's arguments as its card shows them (the policy's preview). Supplied by the tool side. */
  previewCall: (tool: string, argumentsJson: string) => string;
  /**
   * An approver's edit of a call's arguments checked as the model's would be: the tool's input
   * schema and the configured `deny` rules (absent: edits are refused). Supplied by the tool side.
   */
  checkEdit?: (tool: string, argumentsJson: string) => EditCheck;
  clock: () => Date;
  /** Downloads and places inbound messages' files (absent: attachments are not fetched). */
  files?: InboundFiles;
  /**
   * How long a delivery the platform keeps refusing holds the chat's later deliveries (so
   * answers keep their order) before it is given up with a log line and a notice. Default 30 s.
   */
  deliveryHoldMs?: number;
  /** The policy modules (`hooks`, docs/hooks.md); absent: no hooks, no events built. */
  policy?: EventPolicy;
  /**
   * The slots of `queue.concurrency` (src/world/queue/step-slots.ts): each step runs in one, and gives
   * it back while it waits. Absent: the queue's own concurrency is the only bound.
   */
  stepSlots?: StepSlots;
}
