import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../log/logger.js";
import { safeFileName } from "../world/files/inbound-files.js";
import { fileFlags, type OpenDirectory, openWorkdir, realDirectory } from "./directory-by-descriptor.js";

/**
 * The outbox of one tool call: a directory the service makes before the call and takes after
 * it, on every ending. It lies in the world's workdir, `outbox/.call-<call id>/`; a sandboxed
 * `shell_cmd` call sees it as `<workdir>/outbox` (and no other call's), every call is told its
 * path in `ROUNDTABLE_OUTBOX`. Everything here goes by file descriptor from `realpath(workdir)`
 * down: a directory is opened with `O_NOFOLLOW` (a symbolic link anywhere on the way is
 * refused, never followed), a file is opened with `O_NOFOLLOW` and checked with `fstat` (a
 * regular file with one link only), its bytes are read from that descriptor and nothing is
 * ever renamed out of the verified directory. One bad entry is logged and skipped.
 */

/** The directory of the workdir that holds the calls' outboxes (and, inside a sandbox, is the call's own). */
export const outboxDirectory = "outbox";
/** The variable that tells a call where its outbox is. */
export const outboxVariable = "ROUNDTABLE_OUTBOX";

/** A file taken from an outbox: its bytes, or only its size when it is over the cap. */
export interface OutboxFile {
  name: string;
  size: number;
  bytes?: Uint8Array;
}

/** The name of a call's outbox inside `outbox/` (a dot-name: never a file a call leaves there). */
function callOutboxName(callId: string): string {
  return `.call-${safeFileName(callId)}`;
}

/**
 * Make the outbox of call `callId` (empty: whatever an earlier run or a planted archive left
 * under its name goes first) and return its physical path, under `realpath(workdir)`.
 */
export async function prepareCallOutbox(workdir: string, callId: string, logger: Logger): Promise<string> {
  const root = await openWorkdir(workdir);
  try {
    const outbox = await realDirectory(root, outboxDirectory, logger);
    try {
      const name = callOutboxName(callId);
      const stale = await lstat(outbox.entry(name)).catch(() => undefined);
      if (stale) {
        // Moved aside inside the verified directory and removed there: a link is removed, never followed.
        const aside = outbox.entry(`.stale-${randomBytes(6).toString("hex")}`);
        await rename(outbox.entry(name), aside);
        await rm(aside, { recursive: true, force: true });
        logger.warn(
          { callId, kind: stale.isSymbolicLink() ? "link" : "entry" },
          "a call's outbox name was taken: removed",
        );
      }
      await mkdir(outbox.entry(name), { mode: 0o755 });
      return path.join(outbox.where, name);
    } finally {
      await outbox.close();
    }
  } finally {
    await root.close();
  }
}

/** The call's outbox, opened by descriptor from the workdir down, or undefined when it is not (or no longer) there. */
async function openCallOutbox(workdir: string, callId: string): Promise<OpenDirectory | undefined> {
  let root: OpenDirectory;
  try {
    root = await openWorkdir(workdir);
  } catch {
    return undefined;
  }
  try {
    const outbox = await root.child(outboxDirectory);
    try {
      return await outbox.child(callOutboxName(callId));
    } finally {
      await outbox.close();
    }
  } catch {
    return undefined;
  } finally {
    await root.close();
  }
}

/**
 * The files call `callId` left in its outbox: every regular file at its top level with a single
 * link (not a directory, link, device or FIFO; not a name starting with `.`, which is how a
 * file still being written is hidden), each up to `maxBytes` (a bigger one is returned without
 * bytes). Nothing is moved: taking again (a re-run after a crash) finds the same files until
 * {@link discardCallOutbox}. None when the call has no outbox.
 */
export async function takeCallOutbox(
  workdir: string,
  callId: string,
  limits: { maxBytes: number },
  logger: Logger,
): Promise<OutboxFile[]> {
  const outbox = await openCallOutbox(workdir, callId);
  if (!outbox) return [];
  try {
    const files: OutboxFile[] = [];
    for (const name of (await readdir(outbox.self())).sort()) {
      if (name.startsWith(".")) continue;
      try {
        const file = await readOne(outbox, name, limits.maxBytes);
        if (file.kind === "file") files.push(file.file);
        else logger.warn({ callId, file: name, reason: file.reason }, "a file in a call's outbox was not taken");
      } catch (error) {
        logger.warn({ callId, file: name, err: error }, "a file in a call's outbox could not be read; skipped");
      }
    }
    return files;
  } finally {
    await outbox.close();
  }
}

async function readOne(
  outbox: OpenDirectory,
  name: string,
  maxBytes: number,
): Promise<{ kind: "file"; file: OutboxFile } | { kind: "skipped"; reason: string }> {
  let handle: FileHandle;
  try {
    handle = await open(outbox.entry(name), fileFlags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { kind: "skipped", reason: "a symbolic link" };
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { kind: "skipped", reason: "not a regular file" };
    if (stats.nlink > 1) return { kind: "skipped", reason: "a hard link (it has other names)" };
    if (stats.size > maxBytes) return { kind: "file", file: { name, size: stats.size } };
    const bytes = new Uint8Array(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const taken = bytes.subarray(0, read);
    return { kind: "file", file: { name, size: taken.length, bytes: taken } };
  } finally {
    await handle.close();
  }
}

/** Remove call `callId`'s outbox and all it holds (inside the verified directory only); never throws. */
export async function discardCallOutbox(workdir: string, callId: string, logger: Logger): Promise<void> {
  try {
    const root = await openWorkdir(workdir);
    try {
      const outbox = await root.child(outboxDirectory);
      try {
        const aside = outbox.entry(`.stale-${randomBytes(6).toString("hex")}`);
        await rename(outbox.entry(callOutboxName(callId)), aside);
        await rm(aside, { recursive: true, force: true });
      } finally {
        await outbox.close();
      }
    } finally {
      await root.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") logger.warn({ callId, err: error }, "a call's outbox could not be removed");
  }
}
