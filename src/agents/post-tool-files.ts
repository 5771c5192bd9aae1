import { mediaTypeOf } from "../world/files/media-type-of.js";
import { uniqueSafeNames } from "../world/files/inbound-files.js";
import { toolFilesCaption, toolFilesMessageId, toolFilesResultLine } from "../world/files/tool-files.js";
import { parseChatKey } from "../world/chat-ref.js";
import type { MessageFile, MessageRecord, ToolCallRecord } from "../world/records.js";
import type { ToolFile } from "../tools/tool-source.js";
import { discardCallOutbox, type OutboxFile, takeCallOutbox } from "../tools/outbox-files.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";

/** Caps on the files of one tool call, as on an inbound message's (`files.maxBytes`, `files.maxMessageBytes`). */
export interface ToolFileLimits {
  maxBytes: number;
  maxMessageBytes: number;
}

export const defaultToolFileLimits: ToolFileLimits = { maxBytes: 20 * 1024 * 1024, maxMessageBytes: 50 * 1024 * 1024 };

/**
 * Post the files a tool call gave: the files in its result and those it left in its own outbox
 * (`src/tools/outbox-files.ts`, removed once they are stored). They are stored as one
 * message of the agent in the call's chat (id from the call: a second run stores nothing more),
 * with a caption naming them, each typed from its bytes and capped (a file over the cap is
 * named, without bytes), then written under `inbox/<message id>/` like any message's files, and
 * published for delivery (published again when a run finds it stored: the run before may have
 * died in between; a delivery finds a message it posted already). Returns the line the model reads after the tool's result, or
 * undefined when the call gave no file.
 */
export async function postToolFiles(
  runtime: AgentRuntime,
  scope: TurnScope,
  call: ToolCallRecord,
  given: readonly ToolFile[],
  workdir: string,
): Promise<string | undefined> {
  const { logger } = runtime.world;
  const limits = runtime.toolFileLimits ?? defaultToolFileLimits;
  const outbox = await takeCallOutbox(workdir, call.id, limits, logger);
  const line = await storeToolFiles(runtime, scope, call, given, outbox, limits);
  // Taken on every ending: what is stored is the chat's now, and nothing is left for another call.
  await discardCallOutbox(workdir, call.id, logger);
  return line;
}

async function storeToolFiles(
  runtime: AgentRuntime,
  scope: TurnScope,
  call: ToolCallRecord,
  given: readonly ToolFile[],
  outbox: readonly OutboxFile[],
  limits: ToolFileLimits,
): Promise<string | undefined> {
  const { store, logger } = runtime.world;
  const id = toolFilesMessageId(call.id);
  if (given.length === 0 && outbox.length === 0) return undefined;
  const stored = await store.getMessage(id);
  // Stored by an earlier run, which may have died before publishing it: publish it again (its
  // delivery finds it posted already when it was, so the chat shows it once).
  if (stored) return republish(runtime, stored);
  const files = cappedFiles(
    [...given.map((file) => ({ name: file.name, size: file.bytes.length, bytes: file.bytes })), ...outbox],
    limits,
  );
  let message: MessageRecord;
  try {
    message = await store.addMessage({
      id,
      chatKey: call.chatKey,
      author: { kind: "agent", id: call.agent, name: call.agent },
      text: toolFilesCaption(call.name, files),
      turnId: call.turnId,
      files,
    });
  } catch (error) {
    // Stored by a concurrent run: it publishes it.
    if (await store.getMessage(id)) return toolFilesResultLine(await store.messageFiles(id));
    throw error;
  }
  try {
    await runtime.world.files?.place(scope.world, id, files);
  } catch (error) {
    logger.error({ err: error, messageId: id }, "a tool's files could not be written to the workdir");
  }
  await runtime.outbox.publish(call.chatKey, { type: "message", chat: parseChatKey(call.chatKey), message });
  return toolFilesResultLine(files);
}

async function republish(runtime: AgentRuntime, message: MessageRecord): Promise<string> {
  const files = await runtime.world.store.messageFiles(message.id);
  const chat = parseChatKey(message.chatKey);
  await runtime.outbox.publish(message.chatKey, { type: "message", chat, message, rerun: true });
  return toolFilesResultLine(files);
}

/** The files as stored: safe unique names, typed from the bytes, each and all together within the caps. */
function cappedFiles(
  files: readonly { name: string; size: number; bytes?: Uint8Array }[],
  limits: ToolFileLimits,
): MessageFile[] {
  const names = uniqueSafeNames(files.map((file) => file.name));
  let total = 0;
  return files.map((file, index): MessageFile => {
    const name = names[index] ?? "file";
    const bytes = file.bytes;
    if (bytes === undefined || bytes.length > limits.maxBytes)
      return { name, mediaType: "application/octet-stream", size: file.size, refusal: "too big" };
    if (total + bytes.length > limits.maxMessageBytes)
      return { name, mediaType: mediaTypeOf(bytes), size: bytes.length, refusal: "over the call's total" };
    total += bytes.length;
    return { name, mediaType: mediaTypeOf(bytes), size: bytes.length, bytes };
  });
}
