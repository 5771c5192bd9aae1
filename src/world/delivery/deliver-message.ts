import type { ChannelAdapter, OutboundText, SentRef } from "../channel-adapter.js";
import { type ChatRef, chatKey } from "../chat-ref.js";
import type { StoredEvent } from "../events.js";
import { outboundFilesOf } from "../files/tool-files.js";
import { givenUpNotice } from "../given-up-notice.js";
import type { Author, WorldMessage } from "../message.js";
import { outboundFor } from "../outbound/outbound-for.js";
import type { OutboundRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import { writerFor } from "./channel-writer.js";
import { chatKeyOf } from "./delivered.js";
import type { AnswerDrafts } from "./drafts.js";
import { writeFiles } from "./file-writer.js";
import type { Held } from "./hold.js";
import type { PostKey } from "./post-key.js";
import { postKeyFor } from "./post-keys.js";
import type { OutboundFile } from "./primitives.js";
import { recordUntilStored } from "./record-until-stored.js";

/** What a delivery of a message with files has shown so far: its text, then its files' ids. */
interface MessageShown {
  text?: SentRef;
  fileIds: string[];
}

/** One `deliver` step of a `message` or `system` event (`Delivery.deliver`). */
export interface MessageDelivery {
  event: Extract<StoredEvent, { type: "message" | "system" }>;
  adapter: ChannelAdapter;
  /** What is recorded of the event, its message and that message's draft (`Store.eventToDeliver`). */
  recorded: (refKind: OutboundRecord["refKind"], refId: string) => OutboundRecord | undefined;
  rerun: boolean;
  held: Held;
  drafts: AnswerDrafts;
}

/**
 * Show a message: its text (a live stream settled, a recorded draft edited, or a new post),
 * then its files; its ids, its draft forgotten and the event delivered recorded in one write.
 * Answers `posted` when that write was made, `nothing` when nothing (more) was posted for it
 * (published twice, or given up with nothing shown): the caller records the event delivered.
 */
export async function deliverMessage(context: WorldContext, delivery: MessageDelivery): Promise<"posted" | "nothing"> {
  const { store, logger } = context;
  const { event, adapter, recorded, rerun, held } = delivery;
  const { seq, chat } = event;
  const message = event.message;
  // Published twice (a step re-run after a restart): it was posted once, that is enough.
  if (recorded("message", message.id)) return "nothing";
  let outbound = await outboundFor(context, chat, message);
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
  let sent = await held(
    async () => {
      attempt += 1;
      const draft = attempt === 1 ? recorded("draft", message.id) : await store.getOutbound("draft", message.id);
      const mayExist = rerun || attempt > 1 || (event.type === "message" && event.rerun === true);
      const post = await messagePost(context, event, message.id, message.turnId, mayExist);
      const postKey = postKeyFor(store, chat, post, mayExist);
      logger.debug(
        { seq, messageId: message.id, rerun, attempt, draft: draft?.platformMessageIds, mayExist },
        "delivering a message",
      );
      const text = await showMessage(context, delivery, message.id, outbound, draft, postKey);
      if (filesToPost.length === 0) return text;
      shown.text = text;
      return showFiles(context, delivery, message, outbound.author, text, filesToPost, postKey, shown);
    },
    {
      notice: () =>
        givenUpNotice(event, shown.text && filesToPost.slice(shown.fileIds.length).map((file) => file.name)),
    },
  );
  // Given up with its text shown (only files failed): the message is where its text is.
  if (!sent && shown.text) sent = { ids: [...shown.text.ids, ...shown.fileIds] };
  if (!sent) return "nothing";
  // The message's ids, its draft (and files so far) forgotten and the event delivered: one
  // transaction, tried until it is stored (the post is out: a retry would post it again).
  const posted = sent;
  await recordUntilStored(
    () =>
      store.recordOutbound(
        { chatKey: message.chatKey, refKind: "message", refId: message.id, platformMessageIds: posted.ids },
        { chatKey: message.chatKey, refKind: "draft", refId: message.id, platformMessageIds: [] },
        ...(filesToPost.length === 0
          ? []
          : [{ chatKey: message.chatKey, refKind: "files" as const, refId: message.id, platformMessageIds: [] }]),
        { chatKey: chatKeyOf(event), refKind: "event", refId: String(seq), platformMessageIds: posted.ids },
      ),
    logger,
    { seq, messageId: message.id },
  );
  return "posted";
}

/**
 * What a message is as a post: an agent's answer is bounded by its turn's start (its stream
 * may have begun it then, under the same key), anything else by its event's time. The bound
 * only limits a look-up, made only when the post may exist: only then is the turn read.
 */
async function messagePost(
  context: Pick<WorldContext, "store">,
  event: StoredEvent,
  messageId: string,
  turnId: string | undefined,
  mayExist: boolean,
) {
  if (turnId !== undefined && mayExist) {
    const turn = await context.store.getTurn(turnId);
    if (turn) return { kind: "answer", messageId, turnStartedAt: turn.startedAt } as const;
  }
  return { kind: "message", messageId, at: event.createdAt } as const;
}

/**
 * Put a message in the chat: settle its live stream (this process streamed it), else edit the
 * draft a stream recorded (a crash or another process streamed it), else post it.
 */
async function showMessage(
  context: Pick<WorldContext, "logger">,
  { adapter, event, drafts }: MessageDelivery,
  messageId: string,
  outbound: OutboundText,
  draft: OutboundRecord | undefined,
  postKey: PostKey,
): Promise<SentRef> {
  const chat: ChatRef = event.chat;
  const stream = drafts.liveAnswers.take(messageId);
  if (stream) return drafts.finishStream(stream, messageId, chatKey(chat), outbound.text, outbound.mentions);
  // The parts of a long text are recorded as a draft as they are posted: a crash or a refusal
  // between parts leaves a draft that the next attempt edits, rather than posting it again.
  const observer = { posted: (sent: SentRef) => drafts.recordDraft(chatKey(chat), messageId, sent), postKey };
  const writer = writerFor(adapter, context.logger);
  if (draft && draft.platformMessageIds.length > 0 && writer.canEdit) {
    context.logger.info({ messageId, chat: draft.chatKey }, "finishing a recorded draft in place");
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
async function showFiles(
  context: Pick<WorldContext, "store" | "logger">,
  { adapter, event, drafts }: MessageDelivery,
  message: WorldMessage,
  author: Author,
  text: SentRef,
  files: readonly OutboundFile[],
  postKey: PostKey,
  shown: MessageShown,
): Promise<SentRef> {
  const { store, logger } = context;
  const posted = (await store.getOutbound("files", message.id))?.platformMessageIds ?? [];
  shown.fileIds = posted;
  if (posted.length < files.length) await drafts.recordDraft(message.chatKey, message.id, text);
  const record = async (ids: string[]) => {
    await recordUntilStored(
      () =>
        store.recordOutbound({
          chatKey: message.chatKey,
          refKind: "files",
          refId: message.id,
          platformMessageIds: ids,
        }),
      logger,
      { messageId: message.id, files: ids.length },
    );
    shown.fileIds = ids;
  };
  const ids = await writeFiles(adapter, event.chat, author, files, { posted, key: postKey, record });
  return { ids: [...text.ids, ...ids] };
}

/** A message's files as the web links them (a channel without `sendFile`). */
function fileRefs(messageId: string, files: readonly OutboundFile[]) {
  return files.map((file) => ({ messageId, name: file.name, mediaType: file.mimeType }));
}
