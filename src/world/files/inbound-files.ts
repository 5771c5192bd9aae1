import type { InboundAttachment } from "../inbound.js";
import type { MessageFile } from "../records.js";
import type { WorldSettings } from "../world-settings.js";

/** Where an inbound message's files come from: its chat (`chatKey`) and its sender's platform id. */
export interface FilesOrigin {
  chatKey: string;
  person: string;
}

/**
 * How the world gets an inbound message's files: downloaded once at ingress (capped, typed from
 * the bytes) and, once the message is stored, written into the world's workdir for tools.
 * Implemented in src/app (HTTP and the file system); absent, attachments are named only.
 */
export interface InboundFiles {
  /**
   * Every attachment as a file: with its bytes, or refused with a reason and no bytes. `world`
   * is the message's, `origin` its chat and sender (what a transcription is charged to).
   */
  collect(
    attachments: readonly InboundAttachment[],
    world: Pick<WorldSettings, "name" | "limits">,
    origin: FilesOrigin,
  ): Promise<MessageFile[]>;
  /**
   * Write the files that have bytes read-only under `inbox/<message id>/` in the world's
   * workdir, all or none (the directory appears complete); a message placed already is left as it is.
   */
  place(
    world: Pick<WorldSettings, "name" | "workdir">,
    messageId: string,
    files: readonly MessageFile[],
  ): Promise<void>;
  /** Whether `inbox/<message id>/` is there (one look, no bytes read): its files were placed. */
  placed(world: Pick<WorldSettings, "name" | "workdir">, messageId: string): Promise<boolean>;
}

/** Where a message's file lies in the world's workdir (what tools and the model are told). */
export function inboxPath(messageId: string, name: string): string {
  return `inbox/${safeFileName(messageId)}/${name}`;
}

/**
 * A name that is safe as one path segment: letters, digits, `.`, `-`, `_` only, no leading dot,
 * at most 100 characters; `file` when nothing is left.
 */
export function safeFileName(name: string): string {
  // Cut to length before the leading dots go: a cut may start at a dot (never a dot-file).
  const cleaned = name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .slice(-100)
    .replace(/^[._]+/, "");
  return cleaned === "" ? "file" : cleaned;
}

/**
 * Safe names for a message's files, unique within it: a repeated name gets a number in front
 * (`2-a.txt`), the first one no name of the message has (so `a.txt`, `a.txt`, `2-a.txt` give
 * `a.txt`, `3-a.txt`, `2-a.txt`: never two files of one name).
 */
export function uniqueSafeNames(names: readonly string[]): string[] {
  const safe = names.map(safeFileName);
  const seen = new Set<string>();
  return safe.map((name, index) => {
    let unique = name;
    for (let number = index + 1; seen.has(unique) || (unique !== name && safe.includes(unique)); number++) {
      unique = `${number}-${name}`;
    }
    seen.add(unique);
    return unique;
  });
}

/** `12 KiB`, `3.4 MiB`: a size for people. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  const mebibytes = bytes / (1024 * 1024);
  return `${mebibytes < 10 ? mebibytes.toFixed(1) : Math.round(mebibytes)} MiB`;
}

/** The one line a chat gets for a message's refused files (undefined when none was refused). */
export function refusedFilesNotice(files: readonly MessageFile[]): string | undefined {
  const refused = files.filter((file) => file.refusal !== undefined);
  if (refused.length === 0) return undefined;
  const list = refused.map((file) => `${file.name} (${file.refusal})`).join(", ");
  return `Not passed on to the agents: ${list}. The message itself was.`;
}
