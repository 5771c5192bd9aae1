import type { Logger } from "../../log/logger.js";
import { silentLogger } from "../../log/logger.js";
import type { ApprovalCard, ApprovalOutcome } from "../approval-types.js";
import type { ChannelAdapter } from "../channel-adapter.js";
import type { MessageStream, StreamObserver } from "../channel-streaming.js";
import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";
import type { OutboundText, PostObserver, SentRef } from "../outbound-text.js";
import { EditStream } from "./edit-stream.js";
import { PaceTable } from "./pace-table.js";
import { deleteParts, writeCard, writeOutcome, writeText } from "./part-writer.js";

/**
 * The world's view of one channel: post, edit, delete, cards and outcomes, streams, each built
 * once in `src/world/delivery/` on the channel's primitives (docs/architecture.md, "Delivery").
 * Observers are told where a post is before the writer goes on (the post-once protocol).
 */
export interface ChannelWriter {
  /** Whether posts can be edited and removed given only their stored ids (`editMessage`, `deleteMessages`). */
  readonly canEdit: boolean;
  postMessage(chat: ChatRef, message: OutboundText, observer?: PostObserver): Promise<SentRef>;
  /** Make the messages at `sent` show `message` (edit the parts that exist, send missing, remove surplus). */
  editMessage(chat: ChatRef, sent: SentRef, message: OutboundText, observer?: PostObserver): Promise<SentRef>;
  /** Remove posted messages (as `author`'s identity when given). A message already gone is no error. */
  deleteMessages(chat: ChatRef, sent: SentRef, author?: Author): Promise<void>;
  postApprovalCard(chat: ChatRef, card: ApprovalCard, observer?: PostObserver): Promise<SentRef>;
  updateApprovalCard(chat: ChatRef, sent: SentRef, outcome: ApprovalOutcome, observer?: PostObserver): Promise<void>;
  /** A stream of `author`'s answer, or undefined where answers are posted whole. */
  openStream(chat: ChatRef, author: Author, observer?: StreamObserver): Promise<MessageStream | undefined>;
}

const writers = new WeakMap<ChannelAdapter, ChannelWriter>();

/**
 * The writer of `adapter` (one per adapter: streams that share a pace key share its table).
 * Where the channel cannot edit (`canEdit` false), `editMessage` and `deleteMessages` are not
 * called: a draft is then never finished in place nor removed.
 */
export function writerFor(adapter: ChannelAdapter, logger?: Logger): ChannelWriter {
  const known = writers.get(adapter);
  if (known) return known;
  const writer = primitiveWriter(adapter, logger ?? silentLogger());
  writers.set(adapter, writer);
  return writer;
}

function primitiveWriter(adapter: ChannelAdapter, logger: Logger): ChannelWriter {
  const pace = new PaceTable();
  const canEdit = adapter.capabilities.canEdit;
  return {
    canEdit,
    postMessage: (chat, message, observer) => writeText(adapter, chat, message, options(observer)),
    editMessage: (chat, sent, message, observer) =>
      writeText(adapter, chat, message, { shown: sent.ids, ...options(observer) }),
    deleteMessages: (chat, sent, author) => deleteParts(adapter, chat, sent, author),
    postApprovalCard: (chat, card, observer) => writeCard(adapter, chat, card, observer?.postKey, observer?.posted),
    updateApprovalCard: async (chat, sent, outcome, observer) => {
      const how = await writeOutcome(adapter, chat, sent, outcome, observer?.postKey, observer?.posted);
      if (how === "posted") {
        logger.warn({ approvalId: outcome.approvalId }, "approval card could not be edited; outcome posted");
      }
    },
    openStream: async (chat, author, observer) => {
      const mode = adapter.streamMode(chat, author);
      switch (mode.kind) {
        case "none":
          return undefined;
        case "native":
          return mode.open({ key: observer?.postKey, record: (sent) => observer?.posted(sent) ?? Promise.resolve() });
        case "edit":
          return new EditStream({
            channel: adapter,
            chat,
            author,
            mode,
            pace,
            logger: logger.child({ chat: chat.channel }),
            ...(observer?.postKey === undefined ? {} : { key: observer.postKey }),
            ...(observer === undefined ? {} : { record: (sent: SentRef) => observer.posted(sent) }),
          });
      }
    },
  };
}

function options(observer: PostObserver | undefined) {
  return {
    ...(observer?.postKey === undefined ? {} : { key: observer.postKey }),
    ...(observer === undefined ? {} : { record: (sent: SentRef) => observer.posted(sent) }),
  };
}
