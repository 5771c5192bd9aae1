import { assertNever } from "../errors/assert-never.js";
import { deliverCardCopy, deliverOutcomeCopy } from "./approvals/deliver-copy.js";
import { RoundtableError } from "../errors/roundtable-error.js";
import type { ChannelAdapter, MessageStream, OutboundMention, OutboundText, SentRef } from "./channel-adapter.js";
import { type ChatRef, chatKey } from "./chat-ref.js";
import { type ChannelWriter, writerFor } from "./delivery/channel-writer.js";
import { writeFiles } from "./delivery/file-writer.js";
import { LiveAnswers } from "./delivery/live-answers.js";
import type { PostKey } from "./delivery/post-key.js";
import type { OutboundFile } from "./delivery/primitives.js";
import { type PostName, postKeyFor } from "./delivery/post-keys.js";
import { recordUntilStored } from "./delivery/record-until-stored.js";
import type { StoredEvent, WorldEvent } from "./events.js";
import type { OutboundRecord } from "./records.js";
import { jobKey } from "./jobs.js";
import { outboundFilesOf } from "./files/tool-files.js";
import { givenUpNotice } from "./given-up-notice.js";
import type { Author, WorldMessage } from "./message.js";
import { outboundFor } from "./outbound/outbound-for.js";
import type { WorldContext } from "./world-context.js";
import { postWorldNotice } from "./world-notice.js";
import { redrawPendingCard } from "./delivery/card-redraw.js";
import { withoutSlot } from "./queue/step-slots.js";

/** What a delivery of a message with files has shown so far: its text, then its files' ids. */
interface MessageShown {
  text?: SentRef;
  fileIds: string[];
}

export type EventListener = (event: StoredEvent | Extract<WorldEvent, { type: "stream" }>) => void;

/**
 * Persist → emit → enqueue. Every world event is stored first, then handed to in-process
 * listeners, then (when a chat should see it) a `deliver` step is queued in the chat's queue.
 * Delivery is idempotent: a stored record of where the event landed makes a second run a no-op.
 */
export class Outbox {
  private readonly listeners = new Set<EventListener>();
  /** Held streams of answers published here, by the message id they become (owned by delivery). */
  readonly liveAnswers = new LiveAnswers();

  constructor(private readonly context: WorldContext) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Store the event, tell listeners, and queue its delivery. */
  async publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent> {
    const stored = await this.context.store.appendEvent(chatKey, event);
    await this.published(chatKey, stored);
    return stored;
  }

  /** An event the store appended with the write that caused it (`Store.endSettledTurn`): emitted, and queued to deliver. */
  async published(chatKey: string, stored: StoredEvent): Promise<void> {
    this.emit(stored);
    if (shouldDeliver(stored)) {
      const payload = { kind: "deliver", seq: stored.seq } as const;
      await this.context.queue.add({ queue: chatKey, key: jobKey(payload), payload });
    }
  }

  /** Transient stream events: emitted, never stored. */
  emitStream(event: Extract<WorldEvent, { type: "stream" }>): void {
    this.emit(event);
  }

  /** The key of a post in `chat` (the one builder: `postKeyFor`). */
  private postKey(chat: ChatRef, post: PostName, mayExist: boolean): PostKey {
    return postKeyFor(this.context.store, chat, post, mayExist);
  }

  /** The writer of an adapter: posting, streams and once-ness built on its primitives. */
  private writer(adapter: ChannelAdapter): ChannelWriter {
    return writerFor(adapter, this.context.logger);
  }

  /**
   * What a message is as a post: an agent's answer is bounded by its turn's start (its stream
   * may have begun it then, under the same key), anything else by its event's time. The bound
   * only limits a look-up, made only when the post may exist: only then is the turn read.
   */
  private async messagePost(event: StoredEvent, messageId: string, turnId: string | undefined, mayExist: boolean) {
    if (turnId !== undefined && mayExist) {
      const turn = await this.context.store.getTurn(turnId);
      if (turn) return { kind: "answer", messageId, turnStartedAt: turn.startedAt } as const;
    }
    return { kind: "message", messageId, at: event.createdAt } as const;
  }

  /**
   * The `deliver` step. `rerun` says its job ran before (a later attempt, or taken back from a
   * stopped process): a post may then have reached the platform without its id being stored, so
   * adapters that can look for it do (`PostKey.mayExist`).
   */
  async deliver(seq: number, rerun = false, options: { oneTry?: boolean } = {}): Promise<void> {
    const { store, channels, logger } = this.context;
    // The event and what is recorded of it (and of its message and that message's draft): one read.
    const read = await store.eventToDeliver(seq);
    if (!read) {
      logger.warn({ seq }, "deliver: no such event");
      return;
    }
    const { event, recorded: known } = read;
    const recorded = (refKind: OutboundRecord["refKind"], refId: string) =>
      known.find((record) => record.refKind === refKind && record.refId === refId);
    if (recorded("event", String(seq))) return;
    const chat = event.chat;
    const adapter = channels.forChat(
      chat,
      event.type === "message" || event.type === "system" ? event.message.author : undefined,
    );
    if (!adapter) {
      logger.warn(
        { seq, platform: chat.platform },
        "deliver: no channel adapter for this platform; event stays stored",
      );
      return;
    }
    switch (event.type) {
      case "message":
      case "system": {
        const message = event.message;
        // Published twice (a step re-run after a restart): it was posted once, that is enough.
        if (recorded("message", message.id)) break;
        let outbound = await outboundFor(this.context, chat, message);
        // Its files (a tool's), read only for a message that has some: posted after the text
        // where the channel can (`sendFile`), else named by the text (and linked on the web).
        const files = (message.fileCount ?? 0) > 0 ? await outboundFilesOf(store, message) : [];
        if (files.length > 0 && !adapter.sendFile) outbound = { ...outbound, files: fileRefs(message.id, files) };
        const filesToPost = adapter.sendFile ? files : [];
        // The draft is read again on every further attempt: an attempt that failed part way
        // recorded the parts it posted (the retry edits them), and a live stream that failed was
        // removed with its record (the retry posts anew). What is shown so far is kept: when
        // only its files keep failing, the notice names those, and the text stays the message's.
        const shown: MessageShown = { fileIds: [] };
        let attempt = 0;
        let sent = await this.held(
          event,
          options,
          async () => {
            attempt += 1;
            const draft = attempt === 1 ? recorded("draft", message.id) : await store.getOutbound("draft", message.id);
            const mayExist = rerun || attempt > 1 || (event.type === "message" && event.rerun === true);
            const post = await this.messagePost(event, message.id, message.turnId, mayExist);
            const postKey = this.postKey(chat, post, mayExist);
            logger.debug(
              { seq, messageId: message.id, rerun, attempt, draft: draft?.platformMessageIds, mayExist },
              "delivering a message",
            );
            const text = await this.showMessage(adapter, chat, message.id, outbound, draft, postKey);
            if (filesToPost.length === 0) return text;
            shown.text = text;
            return this.showFiles(adapter, chat, message, outbound.author, text, filesToPost, postKey, shown);
          },
          () => givenUpNotice(event, shown.text && filesToPost.slice(shown.fileIds.length).map((file) => file.name)),
        );
        // Given up with its text shown (only files failed): the message is where its text is.
        if (!sent && shown.text) sent = { ids: [...shown.text.ids, ...shown.fileIds] };
        if (!sent) break;
        // The message's ids, its draft (and files so far) forgotten and the event delivered: one
        // transaction, tried until it is stored (the post is out: a retry would post it again).
        const posted = sent;
        await this.recordPosted({ seq, messageId: message.id }, () =>
          store.recordOutbound(
            { chatKey: message.chatKey, refKind: "message", refId: message.id, platformMessageIds: posted.ids },
            { chatKey: message.chatKey, refKind: "draft", refId: message.id, platformMessageIds: [] },
            ...(filesToPost.length === 0
              ? []
              : [{ chatKey: message.chatKey, refKind: "files" as const, refId: message.id, platformMessageIds: [] }]),
            { chatKey: chatKeyOf(event), refKind: "event", refId: String(seq), platformMessageIds: posted.ids },
          ),
        );
        return;
      }
      case "approval-requested": {
        // A copy in an approver's DM or the approvals chat (src/world/approvals/).
        if (event.copy) return deliverCardCopy(this.context, this, { ...event, copy: event.copy }, rerun);
        if (await store.getOutbound("approval", event.card.approvalId)) break;
        const card = event.card;
        const recordCard = (sent: SentRef) =>
          this.recordPosted({ seq, approvalId: card.approvalId }, () =>
            store.recordOutbound({
              chatKey: chatKeyOf(event),
              refKind: "approval",
              refId: card.approvalId,
              platformMessageIds: sent.ids,
            }),
          );
        let attempt = 0;
        const sent = await this.held(event, options, () => {
          attempt += 1;
          const post = { kind: "card", approvalId: card.approvalId, at: event.createdAt } as const;
          const postKey = this.postKey(chat, post, rerun || attempt > 1);
          return this.writer(adapter).postApprovalCard(chat, card, { posted: recordCard, postKey });
        });
        if (!sent) break;
        // The card's ids and the event delivered: one transaction, tried until it is stored.
        await this.recordPosted({ seq, approvalId: card.approvalId }, () =>
          store.recordOutbound(
            { chatKey: chatKeyOf(event), refKind: "approval", refId: card.approvalId, platformMessageIds: sent.ids },
            { chatKey: chatKeyOf(event), refKind: "event", refId: String(seq), platformMessageIds: sent.ids },
          ),
        );
        return;
      }
      case "approval-decided": {
        if (event.copy) return deliverOutcomeCopy(this.context, event, rerun);
        const card = await store.getOutbound("approval", event.outcome.approvalId);
        if (!card) {
          // Its card is not posted yet (its delivery is being retried): try again later.
          throw new RoundtableError("internal", `approval ${event.outcome.approvalId} has no posted card yet`);
        }
        const outcome = event.outcome;
        // An outcome the adapter posts as a new message (the card could not be edited) is
        // recorded as this event's delivery the moment it exists: a re-run after a crash finds
        // the event delivered (above), and a retry here posts nothing more.
        const delivery = { chatKey: chatKeyOf(event), refKind: "event", refId: String(seq) } as const;
        let postedAnew: string[] | undefined;
        const recordOutcomePost = async (sent: SentRef) => {
          postedAnew = sent.ids;
          await this.recordPosted({ seq }, () => store.recordOutbound({ ...delivery, platformMessageIds: sent.ids }));
        };
        let attempt = 0;
        await this.held(event, options, async () => {
          if (postedAnew) return;
          attempt += 1;
          const post = { kind: "outcome", approvalId: outcome.approvalId, at: event.createdAt } as const;
          const postKey = this.postKey(chat, post, rerun || attempt > 1);
          await this.writer(adapter).updateApprovalCard(chat, { ids: card.platformMessageIds }, outcome, {
            posted: recordOutcomePost,
            postKey,
          });
        });
        if (postedAnew) {
          // Recorded again in case that write was what failed (rare: this path only).
          await store.recordOutbound({ ...delivery, platformMessageIds: postedAnew });
          return;
        }
        break;
      }
      case "approval-updated":
        await redrawPendingCard(this.context, adapter, event);
        break;
      case "tool-calls":
      case "tool-result":
      case "turn-ended":
      case "stream":
        return;
      default:
        assertNever(event, "event");
    }
    // Nothing (more) was posted for it: the event is delivered.
    await store.recordOutbound({
      chatKey: chatKeyOf(event),
      refKind: "event",
      refId: String(seq),
      platformMessageIds: [],
    });
  }

  /**
   * Put a message in the chat: settle its live stream (this process streamed it), else edit the
   * draft a stream recorded (a crash or another process streamed it), else post it.
   */
  private async showMessage(
    adapter: ChannelAdapter,
    chat: ChatRef,
    messageId: string,
    outbound: OutboundText,
    draft: OutboundRecord | undefined,
    postKey: PostKey,
  ): Promise<SentRef> {
    const stream = this.liveAnswers.take(messageId);
    if (stream) return this.finishStream(stream, messageId, chatKey(chat), outbound.text, outbound.mentions);
    // The parts of a long text are recorded as a draft as they are posted: a crash or a refusal
    // between parts leaves a draft that the next attempt edits, rather than posting it again.
    const observer = { posted: (sent: SentRef) => this.recordDraft(chatKey(chat), messageId, sent), postKey };
    const writer = this.writer(adapter);
    if (draft && draft.platformMessageIds.length > 0 && writer.canEdit) {
      this.context.logger.info({ messageId, chat: draft.chatKey }, "finishing a recorded draft in place");
      return writer.editMessage(chat, { ids: draft.platformMessageIds }, outbound, observer);
    }
    return writer.postMessage(chat, outbound, observer);
  }

  /**
   * Post a message's files after its text (`text`, where it shows): the text is recorded as the
   * message's draft first (a re-run edits it rather than posting it again), then each file not
   * yet recorded under `files` is posted and recorded before the next. Returns the text's ids
   * and the files' ids, the message's record.
   */
  private async showFiles(
    adapter: ChannelAdapter,
    chat: ChatRef,
    message: WorldMessage,
    author: Author,
    text: SentRef,
    files: readonly OutboundFile[],
    postKey: PostKey,
    shown: MessageShown,
  ): Promise<SentRef> {
    const { store } = this.context;
    const posted = (await store.getOutbound("files", message.id))?.platformMessageIds ?? [];
    shown.fileIds = posted;
    if (posted.length < files.length) await this.recordDraft(message.chatKey, message.id, text);
    const record = async (ids: string[]) => {
      await this.recordPosted({ messageId: message.id, files: ids.length }, () =>
        store.recordOutbound({
          chatKey: message.chatKey,
          refKind: "files",
          refId: message.id,
          platformMessageIds: ids,
        }),
      );
      shown.fileIds = ids;
    };
    const ids = await writeFiles(adapter, chat, author, files, { posted, key: postKey, record });
    return { ids: [...text.ids, ...ids] };
  }

  /**
   * Where a stream of message `messageId` shows, recorded the moment it exists (tried until it
   * is stored: the post is out, and a retry without its record would post it again).
   */
  recordDraft(chatKey: string, messageId: string, sent: SentRef): Promise<void> {
    return this.recordPosted({ messageId, draft: sent.ids.length }, () =>
      this.context.store.recordOutbound({
        chatKey,
        refKind: "draft",
        refId: messageId,
        platformMessageIds: sent.ids,
      }),
    );
  }

  /** A record of posts that are on the platform: written until stored (`recordUntilStored`). */
  private recordPosted(what: Record<string, unknown>, write: () => Promise<void>): Promise<void> {
    return recordUntilStored(write, this.context.logger, what);
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
    const writer = adapter ? this.writer(adapter) : undefined;
    if (!stream && writer?.canEdit) {
      try {
        await writer.deleteMessages(chat, { ids: draft.platformMessageIds });
      } catch (error) {
        this.context.logger.warn({ err: error, messageId }, "could not remove an abandoned draft");
      }
    }
    await this.forgetDraft(draft.chatKey, messageId);
  }

  private async forgetDraft(chatKey: string, messageId: string): Promise<void> {
    if (!(await this.context.store.getOutbound("draft", messageId))) return;
    await this.context.store.recordOutbound({ chatKey, refKind: "draft", refId: messageId, platformMessageIds: [] });
  }

  /**
   * Run a platform call of a delivery. A refusal is tried again (backing off) for up to
   * `deliveryHoldMs` while the chat's later deliveries wait behind it, so answers keep the
   * order of the messages they answer; then it is given up: a log line, a world notice saying
   * what was not shown (`notice`, read then; none for a world notice itself), and undefined.
   */
  private async held<T>(
    event: StoredEvent,
    options: { oneTry?: boolean },
    call: () => Promise<T>,
    notice: () => string | undefined = () => givenUpNotice(event),
  ): Promise<T | undefined> {
    const holdMs = options.oneTry === true ? 0 : (this.context.deliveryHoldMs ?? 30_000);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const wait = Math.min(250 * 2 ** (attempt - 1), 5_000);
        const log = this.context.logger.child({ chat: chatKeyOf(event), seq: event.seq, event: event.type });
        if (Date.now() - started + wait > holdMs) {
          log.error(
            { err: error, attempts: attempt },
            "delivery given up after holding the chat; later messages go on",
          );
          await this.noticeGivenUp(event, notice());
          return undefined;
        }
        log.warn({ err: error, attempt, retryInMs: wait }, "delivery refused; holding the chat's later deliveries");
        // The platform's retry time is waited out without the step's slot.
        await withoutSlot(() => new Promise((resolve) => setTimeout(resolve, wait)));
      }
    }
  }

  /**
   * Say in the chat what a given-up delivery did not show: a world notice
   * (`postWorldNotice`) under an id derived from the event, so a delivery run again (a retry,
   * a restart) never stores or shows it twice. It is stored without a queued `deliver` step and
   * delivered at once, one try, so it shows where the given-up item would have been or not at
   * all: a queued step would hold the chat's later posts again where the platform refuses
   * everything, and show the notice late, out of its place. (A crash before that try leaves it
   * to the start's sweep of lost steps, `recover-lost-steps.ts`.)
   */
  private async noticeGivenUp(event: StoredEvent, text: string | undefined): Promise<void> {
    if (text === undefined) return;
    const id = `undelivered:${event.seq}`;
    let stored: StoredEvent | undefined;
    const outbox = {
      publish: async (chatKey: string, notice: Exclude<WorldEvent, { type: "stream" }>) => {
        stored = await this.context.store.appendEvent(chatKey, notice);
        this.emit(stored);
      },
    };
    await postWorldNotice(this.context, outbox, { chat: event.chat, id, text, level: "error" });
    if (stored) await this.deliver(stored.seq, false, { oneTry: true });
  }

  /** Settle a live stream; when that fails, remove it (and its draft record) so a retry posts anew. */
  private async finishStream(
    stream: MessageStream,
    messageId: string,
    chatKey: string,
    text: string,
    mentions: readonly OutboundMention[] | undefined,
  ) {
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

  private emit(event: StoredEvent | Extract<WorldEvent, { type: "stream" }>): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.context.logger.error({ err: error }, "event listener failed");
      }
    }
  }
}

/** Whether a chat should see this event (posted, or a card shown or updated). */
export function shouldDeliver(event: WorldEvent): boolean {
  switch (event.type) {
    case "message":
      return event.message.author.kind === "agent";
    case "system":
    case "approval-requested":
    case "approval-decided":
    case "approval-updated":
      return true;
    case "tool-calls":
    case "tool-result":
    case "turn-ended":
    case "stream":
      return false;
    default:
      return assertNever(event, "event");
  }
}

/** A message's files as the web links them (a channel without `sendFile`). */
function fileRefs(messageId: string, files: readonly OutboundFile[]) {
  return files.map((file) => ({ messageId, name: file.name, mediaType: file.mimeType }));
}

function chatKeyOf(event: WorldEvent): string {
  if (event.type === "message" || event.type === "system") return event.message.chatKey;
  return chatKey(event.chat);
}
