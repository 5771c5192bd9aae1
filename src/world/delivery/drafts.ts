import type { MessageStream } from "../channel-streaming.js";
import type { ChatRef } from "../chat-ref.js";
import type { OutboundMention } from "../outbound/outbound-mention.js";
import type { SentRef } from "../outbound-text.js";
import type { WorldContext } from "../world-context.js";
import { writerFor } from "./channel-writer.js";
import { LiveAnswers } from "./live-answers.js";
import { recordUntilStored } from "./record-until-stored.js";

type DraftContext = Pick<WorldContext, "store" | "channels" | "logger">;

/**
 * An answer's drafts (docs/architecture.md, "An answer out"): the held streams of this process
 * (`LiveAnswers`) and the `draft` records of where a stream's text shows, written the moment a
 * platform message exists, so that whoever delivers the answer edits it rather than posting it
 * beside it. One per engine; the outbox carries it to `src/agents`' answer handle.
 */
export class AnswerDrafts {
  /** Held streams of answers published here, by the message id they become. */
  readonly liveAnswers = new LiveAnswers();

  constructor(private readonly context: DraftContext) {}

  /**
   * Where a stream of message `messageId` shows, recorded the moment it exists (tried until it
   * is stored: the post is out, and a retry without its record would post it again).
   */
  recordDraft(chatKey: string, messageId: string, sent: SentRef): Promise<void> {
    return recordUntilStored(
      () =>
        this.context.store.recordOutbound({
          chatKey,
          refKind: "draft",
          refId: messageId,
          platformMessageIds: sent.ids,
        }),
      this.context.logger,
      { messageId, draft: sent.ids.length },
    );
  }

  /** Whether a draft of message `messageId` is in the chat (a stream a crash cut off). */
  async hasDraft(messageId: string): Promise<boolean> {
    return (await this.context.store.getOutbound("draft", messageId)) !== undefined;
  }

  /**
   * Remove the draft of message `messageId` from the chat (its step ended without that message:
   * a failure, an empty answer), whether this process streams it (`stream`) or only its record
   * is left (a crash), so that nothing half-written stays behind.
   */
  async discardDraft(chat: ChatRef, messageId: string, stream?: MessageStream): Promise<void> {
    this.liveAnswers.drop(messageId);
    if (stream) await this.abortStream(stream);
    const draft = await this.context.store.getOutbound("draft", messageId);
    if (!draft) return;
    const adapter = this.context.channels.forChat(chat);
    const writer = adapter ? writerFor(adapter, this.context.logger) : undefined;
    if (!stream && writer?.canEdit) {
      try {
        await writer.deleteMessages(chat, { ids: draft.platformMessageIds });
      } catch (error) {
        this.context.logger.warn({ err: error, messageId }, "could not remove an abandoned draft");
      }
    }
    await this.forgetDraft(draft.chatKey, messageId);
  }

  /** Settle a live stream; when that fails, remove it (and its draft record) so a retry posts anew. */
  async finishStream(
    stream: MessageStream,
    messageId: string,
    chatKey: string,
    text: string,
    mentions: readonly OutboundMention[] | undefined,
  ): Promise<SentRef> {
    try {
      return await stream.finish(text, mentions);
    } catch (error) {
      await this.abortStream(stream);
      await this.forgetDraft(chatKey, messageId);
      throw error;
    }
  }

  /** Abandon a live draft (the turn failed before its message was stored). */
  async abortStream(stream: MessageStream): Promise<void> {
    try {
      await stream.abort();
    } catch (error) {
      this.context.logger.warn({ err: error }, "could not abort a streamed draft");
    }
  }

  private async forgetDraft(chatKey: string, messageId: string): Promise<void> {
    if (!(await this.context.store.getOutbound("draft", messageId))) return;
    await this.context.store.recordOutbound({ chatKey, refKind: "draft", refId: messageId, platformMessageIds: [] });
  }
}
