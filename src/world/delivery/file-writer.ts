import type { ChatRef } from "../chat-ref.js";
import type { Author } from "../message.js";
import { fileKeyOf, type PostKey } from "./post-key.js";
import type { ChannelPrimitives, OutboundFile } from "./primitives.js";

export interface WriteFilesOptions {
  /** Platform ids of the files an earlier run posted (recorded): those are not sent again. */
  posted?: readonly string[];
  /** The message's post key: file `i` is sent under `fileKeyOf(key, i)`. */
  key?: PostKey;
  /** Store the ids of the files posted so far; awaited before the next file is sent. */
  record?: (ids: string[]) => Promise<void>;
}

/**
 * Post a message's files after its text (docs/architecture.md, "Posting once"), each as its own
 * platform message through the channel's `sendFile`, under its file key: the files an earlier
 * run recorded are skipped, and the ids so far are recorded after each file, before the next
 * one is sent, so a re-run after a crash posts only what is missing. A channel without
 * `sendFile` posts none (the message's text names them). Returns every file's id, in order.
 */
export async function writeFiles<Part>(
  channel: ChannelPrimitives<Part>,
  chat: ChatRef,
  author: Author,
  files: readonly OutboundFile[],
  options: WriteFilesOptions = {},
): Promise<string[]> {
  const ids = [...(options.posted ?? [])];
  if (!channel.sendFile) return ids;
  for (let index = ids.length; index < files.length; index += 1) {
    const file = files[index] as OutboundFile;
    const key = options.key === undefined ? {} : { key: fileKeyOf(options.key, index) };
    ids.push(await channel.sendFile(chat, author, file, key));
    await options.record?.([...ids]);
  }
  return ids;
}
