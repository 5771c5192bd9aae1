import { type ChatRef, parseChatKey } from "../chat-ref.js";
import type { Outbox } from "../outbox.js";
import { postWorldNotice } from "../world-notice.js";
import type { MessageFile, MessageRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { refusedFilesNotice } from "./inbound-files.js";
import { untranscribedNotice } from "./transcripts.js";

type FilesContext = Pick<WorldContext, "store" | "files" | "logger">;
type FilesWorld = Pick<WorldSettings, "name" | "workdir">;

/**
 * What a stored message's files lead to: the refused ones named in one line in the chat, then
 * the others written into the workdir. Both are idempotent (the notice has a fixed id; a placed
 * message is left as it is), and in this order a message whose files are placed has had its
 * notice. A write that fails is logged, not thrown: the message is still routed, and the models
 * get the files from the store.
 */
export async function settleFiles(
  context: FilesContext,
  outbox: Outbox,
  world: FilesWorld,
  chat: ChatRef,
  messageId: string,
  files: readonly MessageFile[],
): Promise<void> {
  const lines = [refusedFilesNotice(files), untranscribedNotice(files)].filter((line) => line !== undefined);
  const notice = lines.length === 0 ? undefined : lines.join("\n");
  if (notice !== undefined) await postWorldNotice(context, outbox, { chat, id: `${messageId}:files`, text: notice });
  try {
    await context.files?.place(world, messageId, files);
  } catch (error) {
    context.logger.error({ err: error, messageId }, "a message's files could not be written to the workdir");
  }
}

/**
 * The route step's check that ingress settled the message's files, and settling them from the
 * store where it did not (a crash between storing the message and writing them: its redelivery
 * is a duplicate and fetches nothing). Costs nothing for a message without files and one look
 * at the workdir for a message whose files are placed.
 */
export async function settleStoredFiles(
  context: FilesContext,
  outbox: Outbox,
  world: FilesWorld,
  message: MessageRecord,
): Promise<void> {
  const files = context.files;
  if (files === undefined || (message.fileCount ?? 0) === 0) return;
  if (await files.placed(world, message.id)) return;
  const stored = await context.store.messageFiles(message.id);
  await settleFiles(context, outbox, world, parseChatKey(message.chatKey), message.id, stored);
}
