import type { MessageStream } from "../channel-streaming.js";
import { parseChatKey } from "../chat-ref.js";
import type { StoredEvent, WorldEvent } from "../events.js";
import type { WorldMessage } from "../message.js";
import { withIdentity } from "../outbound/outbound-for.js";
import type { WorldContext } from "../world-context.js";
import { writerFor } from "./channel-writer.js";
import type { AnswerDrafts } from "./drafts.js";
import { postKeyFor } from "./post-keys.js";

/** The step an answer is written in. */
export interface AnswerOf {
  /** The turn, as read when the step began. */
  turn: { id: string; chatKey: string; startedAt: Date; step: number };
  step: number;
  /** The id of the message the answer becomes. */
  messageId: string;
  agent: string;
  /** The turn was created by the job running this step: no earlier run left a draft to look for. */
  noEarlierRun?: boolean;
}

/**
 * One answer of an agent, from its first token to the chat (docs/architecture.md, "An answer
 * out"). `src/agents` holds only this: the stream, its key, its draft record and its hold are
 * the delivery's.
 */
export interface AnswerDraft {
  /** Whether the answer shows while it is written (else it is posted whole when published). */
  readonly streaming: boolean;
  /** The whole text so far (not a delta). Cheap to call often. */
  update(textSoFar: string): void;
  /**
   * Store nothing, but hand the answer to its delivery: the stream is held first (every message
   * it posted is recorded, so a delivery run by another process edits them rather than posting
   * the answer beside them), then the message event is published.
   */
  publish(message: WorldMessage, options?: { rerun?: boolean }): Promise<void>;
  /** The answer will not be shown: remove what its stream showed (or a draft a crash left). */
  discard(): Promise<void>;
}

/** What an answer is published through (the outbox), with the drafts it carries. */
export interface AnswerOutbox {
  publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent>;
  readonly drafts: AnswerDrafts;
}

/**
 * Open the answer `of` describes. A draft recorded by an earlier run of the step (a crash) stays
 * where it is: the answer is written into it at delivery, so no stream is opened. Else a stream
 * is opened where the channel shows answers as they are written; its posts carry the answer's
 * key, which may exist already when the turn's stored step reached this one (an earlier run
 * called the model and may have posted the stream's first message before a crash).
 */
export async function openAnswer(world: WorldContext, outbox: AnswerOutbox, of: AnswerOf): Promise<AnswerDraft> {
  const chat = parseChatKey(of.turn.chatKey);
  const drafted = of.noEarlierRun !== true && (await outbox.drafts.hasDraft(of.messageId));
  const stream = drafted ? undefined : await openStream(world, outbox, of);
  return answerDraft(outbox, of.turn.chatKey, of.messageId, stream, chat);
}

/** An answer stored by an earlier run of its step, published again: nothing streams. */
export function storedAnswer(outbox: AnswerOutbox, chatKey: string, messageId: string): AnswerDraft {
  return answerDraft(outbox, chatKey, messageId, undefined, parseChatKey(chatKey));
}

function answerDraft(
  outbox: AnswerOutbox,
  chatKey: string,
  messageId: string,
  stream: MessageStream | undefined,
  chat: ReturnType<typeof parseChatKey>,
): AnswerDraft {
  let settled = false;
  return {
    streaming: stream !== undefined,
    update(textSoFar) {
      if (!settled) stream?.update(textSoFar);
    },
    async publish(message, options = {}) {
      settled = true;
      if (stream) {
        // Hold before publish, always: the delivery may run in another process.
        await stream.hold?.();
        outbox.drafts.liveAnswers.put(message.id, stream);
      }
      await outbox.publish(chatKey, { type: "message", chat, message, ...(options.rerun ? { rerun: true } : {}) });
    },
    async discard() {
      settled = true;
      await outbox.drafts.discardDraft(chat, messageId, stream);
    },
  };
}

async function openStream(world: WorldContext, outbox: AnswerOutbox, of: AnswerOf) {
  const chat = parseChatKey(of.turn.chatKey);
  const author = withIdentity(world, { kind: "agent", id: of.agent, name: of.agent });
  const adapter = world.channels.forChat(chat, author);
  if (!adapter) return undefined;
  // The stream and the delivery name the answer alike: one key, bounded by the turn's start.
  const post = { kind: "answer", messageId: of.messageId, turnStartedAt: of.turn.startedAt } as const;
  const postKey = postKeyFor(world.store, chat, post, of.turn.step >= of.step);
  try {
    return await writerFor(adapter, world.logger).openStream(chat, author, {
      posted: (sent) => outbox.drafts.recordDraft(of.turn.chatKey, of.messageId, sent),
      postKey,
    });
  } catch (error) {
    world.logger.warn({ err: error }, "could not open a streamed draft; the answer is posted whole");
    return undefined;
  }
}
