import { constants, existsSync } from "node:fs";
import { type FileHandle, mkdir, open, realpath, unlink } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../log/logger.js";

/**
 * Directories of a world's workdir, walked by file descriptor from `realpath(workdir)` down:
 * each opened with `O_NOFOLLOW` (a symbolic link on the way is refused, never followed) and
 * its entries named through the descriptor, so what the service reads, writes or removes there
 * is inside the workdir whatever a tool made of the names meanwhile. Used for a call's outbox
 * (`outbox-files.ts`) and a message's inbox files (`src/app/inbound-file-fetcher.ts`).
 */

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO planted in the outbox never blocks the open.
export const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Linux names an open directory's entries through its descriptor: an `openat` for Node.js. */
export const byDescriptor = existsSync("/proc/self/fd");

/** An open directory, and how to name an entry of it without following any link above it. */
export class OpenDirectory {
  private constructor(
    readonly handle: FileHandle,
    /** Its path as opened (for messages and the non-Linux fallback). */
    readonly where: string,
  ) {}

  /** Open `where` as a directory, refusing a symbolic link as its last component. */
  static async open(where: string): Promise<OpenDirectory> {
    const handle = await open(where, directoryFlags);
    return new OpenDirectory(handle, where);
  }

  /** The path of entry `name` of this directory, resolved through its descriptor where the host allows. */
  entry(name: string): string {
    // Programming error: the callers pass names they made (a call's outbox, a stale name).
    if (name.includes("/") || name === "." || name === "..") throw new Error(`not one entry: ${name}`);
    return byDescriptor ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.where, name);
  }

  /** The directory itself, as a path that goes through its descriptor where the host allows. */
  self(): string {
    return byDescriptor ? `/proc/self/fd/${this.handle.fd}` : this.where;
  }

  /** Open entry `name` as a directory of its own (never through a link). */
  child(name: string): Promise<OpenDirectory> {
    return OpenDirectory.open(this.entry(name)).then(
      (opened) => new OpenDirectory(opened.handle, path.join(this.where, name)),
    );
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The workdir, resolved once (the operator's own links in its path are theirs), opened by descriptor. */
export async function openWorkdir(workdir: string): Promise<OpenDirectory> {
  return OpenDirectory.open(await realpath(workdir));
}

/**
 * `name` in `parent` as a real directory, made when missing; whatever else has the name (a
 * symbolic link, a file, a FIFO) is removed first, so a planted `outbox -> ../../data` never
 * leads anywhere and never wedges a later call.
 */
export async function realDirectory(parent: OpenDirectory, name: string, logger: Logger): Promise<OpenDirectory> {
  try {
    return await parent.child(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      logger.warn({ entry: path.join(parent.where, name), code }, "not a real directory in the workdir: removed");
      await unlink(parent.entry(name));
    }
  }
  try {
    await mkdir(parent.entry(name), { mode: 0o755 });
  } catch (error) {
    // Another call of the world made it meanwhile: opened (and checked) as it is.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parent.child(name);
}
