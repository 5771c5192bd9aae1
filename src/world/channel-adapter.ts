import type { ApprovalCard, ApprovalOutcome } from "./approval-types.js";
import type { ChannelCapabilities } from "./channel-capabilities.js";
import type { ChatRef, Platform } from "./chat-ref.js";
import type { InboundSink } from "./inbound.js";
import type { OutboundText, PostObserver, SentRef } from "./outbound-text.js";

export type { ChannelCapabilities } from "./channel-capabilities.js";
export * from "./channel-optional.js";
export * from "./channel-streaming.js";
export type { OutboundText, PostKey, PostObserver, SentRef } from "./outbound-text.js";
export { partKey } from "./outbound-text.js";
export type { PartOnce } from "./part-once.js";
export { earliestPostTime, partOnce } from "./part-once.js";
export type { OutboundMention } from "./outbound-mention.js";
export { splitByMentions } from "./outbound-mention.js";

/**
 * One platform connection. Every adapter has these few members; optional abilities are the
 * small interfaces re-exported here (streaming, edits from stored ids, private replies,
 * webhooks, an agent's own identity, a working status), each found with its type guard.
 *
 * Inbound, an adapter verifies and parses platform payloads into `InboundMessage` and
 * `ApprovalClick` and hands them to the sink. It marks the service's own posts coming back
 * (`ownEcho`) instead of dropping them silently, fills `threadRoot` for a message in a thread,
 * and carries the platform's ids (the world dedupes on them). See docs/architecture.md,
 * "Adding a channel".
 */
export interface ChannelAdapter {
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
  /*
   * The old path, until every channel is built on the primitives (`ChannelPrimitives`,
   * src/world/delivery/primitives.ts): an adapter that has no primitives posts with these, and
   * the world reaches them through `writerFor` alone.
   */
  /** Post `message` (split into parts when long), telling `observer` each part but the last. */
  postMessage?(chat: ChatRef, message: OutboundText, observer?: PostObserver): Promise<SentRef>;
  /**
   * Post an approval card with its choices. `observer` is told the card's id before anything
   * else is sent with it (an attached file), so that a crash in between does not post it twice.
   */
  postApprovalCard?(chat: ChatRef, card: ApprovalCard, observer?: PostObserver): Promise<SentRef>;
  /**
   * Show the outcome on the card and remove its buttons, or post the outcome as a new message
   * when the card cannot be edited (gone, too old); `observer` is told that message's id the
   * moment it exists, so that a retry or a re-run after a crash does not post it twice.
   */
  updateApprovalCard?(chat: ChatRef, sent: SentRef, outcome: ApprovalOutcome, observer?: PostObserver): Promise<void>;
}
