import type { OutboundFile } from "../delivery/primitives.js";
import type { MessageFile } from "../records.js";
import type { Store } from "../store.js";
import { formatSize } from "./inbound-files.js";

/** What the id of a tool call's files message ends with. */
const toolFilesSuffix = ":tool-files";

/**
 * The id of the message that carries the files one tool call gave (its result's images and
 * blobs, what it wrote to `outbox/`): derived from the call, so storing it again adds nothing.
 */
export function toolFilesMessageId(toolCallId: string): string {
  return `${toolCallId}${toolFilesSuffix}`;
}

/** Whether a message is a tool call's files message (its agent already read the tool's result). */
export function isToolFilesMessage(message: { id: string; author: { kind: string } }): boolean {
  return message.author.kind === "agent" && message.id.endsWith(toolFilesSuffix);
}

/** The files message's text: `chart.png from notes__chart`, naming what could not be posted. */
export function toolFilesCaption(tool: string, files: readonly MessageFile[]): string {
  const posted = files.filter((file) => file.bytes !== undefined).map((file) => file.name);
  const refused = files
    .filter((file) => file.bytes === undefined)
    .map((file) => `${file.name} (${file.refusal ?? "no bytes"}, ${formatSize(file.size)})`);
  const parts: string[] = [];
  if (posted.length > 0) parts.push(`${posted.join(", ")} from ${tool}`);
  if (refused.length > 0) parts.push(`Not posted: ${refused.join(", ")}.`);
  return parts.join("\n");
}

/** The line the model reads after the tool's result, saying what reached the chat. */
export function toolFilesResultLine(files: readonly MessageFile[]): string {
  const list = files.map((file) =>
    file.bytes === undefined
      ? `${file.name} (not posted: ${file.refusal ?? "no bytes"})`
      : `${file.name} (${file.mediaType}, ${formatSize(file.size)})`,
  );
  return `[files posted to the chat: ${list.join(", ")}]`;
}

/**
 * A stored message's files as a channel posts them (`ChannelPrimitives.sendFile`, one platform
 * message each, in order, after the message's text, which names them: so no caption), those
 * with bytes. None, and no read, for a message without files.
 */
export async function outboundFilesOf(
  store: Pick<Store, "messageFiles">,
  message: { id: string; fileCount?: number | undefined },
): Promise<OutboundFile[]> {
  if ((message.fileCount ?? 0) === 0) return [];
  const files = (await store.messageFiles(message.id)).filter((file) => file.bytes !== undefined);
  return files.map((file) => ({ name: file.name, mimeType: file.mediaType, bytes: file.bytes ?? new Uint8Array() }));
}
