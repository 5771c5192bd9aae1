import type { MessageFile } from "../records.js";
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
