import type { Logger } from "../../log/logger.js";
import { silentLogger } from "../../log/logger.js";
import type { ApprovalCard, ApprovalOutcome } from "../approval-types.js";
import type { ChannelAdapter } from "../channel-adapter.js";
import { isEditingChannel, isStreamingChannel, type MessageStream, type StreamObserver } from "../channel-streaming.js";
import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";
import type { OutboundText, PostObserver, SentRef } from "../outbound-text.js";
import { EditStream, PaceTable } from "./edit-stream.js";
import { deleteParts, writeCard, writeOutcome, writeText } from "./part-writer.js";
import { type ChannelPrimitives, isPrimitiveChannel } from "./primitives.js";

export { isPrimitiveChannel } from "./primitives.js";

/**
 * The world's view of one channel: post, edit, delete, cards and outcomes, streams, each built
 * once in `src/world/delivery/` on the channel's primitives (docs/architecture.md, "Delivery").
 * Observers are told where a post is before the writer goes on (the post-once protocol).
 */
export interface ChannelWriter {
  readonly adapter: ChannelAdapter;
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
 * An adapter not yet built on the primitives is written through its own methods. A channel
 * that cannot edit gets a writer without `editMessage`/`deleteMessages` (`isEditingChannel`).
 */
export function writerFor(adapter: ChannelAdapter, logger?: Logger): ChannelWriter {
  const known = writers.get(adapter);
  if (known) return known;
  const writer = isPrimitiveChannel(adapter)
    ? primitiveWriter(adapter, logger ?? silentLogger())
    : adapterWriter(adapter);
  writers.set(adapter, writer);
  return writer;
}

function primitiveWriter(adapter: ChannelAdapter & ChannelPrimitives<unknown>, logger: Logger): ChannelWriter {
  const pace = new PaceTable();
  const canEdit = adapter.capabilities.canEdit;
  const writer: ChannelWriter = {
    adapter,
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
  return canEdit ? writer : withoutEdits(writer);
}

/**
 * The old path: an adapter with its own post, edit and stream methods (until every channel is
 * converted). Its methods are looked up at each call (a test may replace one).
 */
function adapterWriter(adapter: ChannelAdapter): ChannelWriter {
  const own = <Name extends "postMessage" | "postApprovalCard" | "updateApprovalCard">(name: Name) => {
    const method = adapter[name];
    if (!method) throw new Error(`channel ${adapter.id} has neither the delivery primitives nor ${name}`);
    return method.bind(adapter) as NonNullable<ChannelAdapter[Name]>;
  };
  const editing = () => {
    if (!isEditingChannel(adapter)) throw new Error(`channel ${adapter.id} cannot edit`);
    return adapter;
  };
  const writer: ChannelWriter = {
    adapter,
    canEdit: isEditingChannel(adapter),
    postMessage: (chat, message, observer) => own("postMessage")(chat, message, observer),
    editMessage: (chat, sent, message, observer) => editing().editMessage(chat, sent, message, observer),
    deleteMessages: async (chat, sent, author) => {
      // Some adapters take the author whose identity posted them (its own bot).
      const channel = editing();
      const remove = channel.deleteMessages as (chat: ChatRef, sent: SentRef, author?: Author) => Promise<void>;
      await remove.call(channel, chat, sent, author);
    },
    postApprovalCard: (chat, card, observer) => own("postApprovalCard")(chat, card, observer),
    updateApprovalCard: (chat, sent, outcome, observer) => own("updateApprovalCard")(chat, sent, outcome, observer),
    openStream: async (chat, author, observer) =>
      isStreamingChannel(adapter) ? adapter.openStream(chat, author, observer) : undefined,
  };
  return writer.canEdit ? writer : withoutEdits(writer);
}

/** A writer whose channel cannot edit: no edit methods, so `isEditingChannel(writer)` is false. */
function withoutEdits(writer: ChannelWriter): ChannelWriter {
  const { editMessage: _edit, deleteMessages: _delete, ...rest } = writer;
  return rest as ChannelWriter;
}

function options(observer: PostObserver | undefined) {
  return {
    ...(observer?.postKey === undefined ? {} : { key: observer.postKey }),
    ...(observer === undefined ? {} : { record: (sent: SentRef) => observer.posted(sent) }),
  };
}
