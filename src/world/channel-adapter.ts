import type { ChannelCapabilities } from "./channel/channel-capabilities.js";
import type { Platform } from "./chat-ref.js";
import type { InboundSink } from "./inbound.js";
import type { ChannelPrimitives } from "./delivery/primitives.js";

/*
 * The one file of src/world a channel imports (with src/errors and src/log; `npm run deps`
 * checks): everything a channel may use is re-exported here, and nothing else of the world
 * reaches a channel.
 */
export type { ApprovalCard, ApprovalOutcome } from "./approval-types.js";
export type { ChannelCapabilities } from "./channel/channel-capabilities.js";
export * from "./channel/channel-clock.js";
export * from "./channel/channel-optional.js";
export * from "./channel-streaming.js";
export * from "./chat-ref.js";
export * from "./commands/chat-commands.js";
export type * from "./delivery/primitives.js";
export { PaceTable } from "./delivery/pace-table.js";
export { earliestPostTime, type PartKey, partKeyOf, type PostKey } from "./delivery/post-key.js";
export * from "./inbound.js";
export * from "./outbound/invisible-characters.js";
export type * from "./stores/installation-store.js";
export type * from "./stores/login-session-store.js";
export type { Author, AuthorKind } from "./message.js";
export * from "./outbound/outbound-mention.js";
export type { OutboundText, PostObserver, SentRef } from "./outbound-text.js";
export * from "./queue/singleton-lock.js";

/**
 * One platform connection: these few members and the delivery primitives (render, send, edit,
 * delete a part; cards; how answers stream: src/world/delivery/primitives.ts), on which the
 * world builds every post once. Optional abilities are the
 * small interfaces re-exported here (streaming, private replies,
 * webhooks, an agent's own identity, a working status), each found with its type guard.
 *
 * Inbound, an adapter verifies and parses platform payloads into `InboundMessage` and
 * `ApprovalClick` and hands them to the sink. It marks the service's own posts coming back
 * (`ownEcho`) instead of dropping them silently, fills `threadRoot` for a message in a thread,
 * and carries the platform's ids (the world dedupes on them). See docs/architecture.md,
 * "Adding a channel".
 */
export interface ChannelAdapter<Part = unknown> extends ChannelPrimitives<Part> {
  /**
   * Unique among the running adapters, e.g. `telegram`, `slack`, or `discord:bob` for an
   * agent's own connection. Two adapters with one id are refused at start.
   */
  readonly id: string;
  readonly platform: Platform;
  readonly capabilities: ChannelCapabilities;
  /** Connect and begin handing inbound messages and clicks to `sink`. */
  start(sink: InboundSink): Promise<void>;
  /** Stop taking input and close connections. */
  stop(): Promise<void>;
  /** For `/readyz`. */
  isConnected(): boolean;
}
