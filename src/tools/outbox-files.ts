import { lstat, mkdir, readdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { safeFileName } from "../world/files/inbound-files.js";

/** Where a tool puts a file for the chat, relative to the world's workdir. */
export const outboxDirectory = "outbox";
/** Where files taken from the outbox go, one directory per tool call. */
export const postedDirectory = "outbox-posted";

/** A file taken from the outbox: its bytes, or only its size when it is over the cap. */
export interface OutboxFile {
  name: string;
  size: number;
  bytes?: Uint8Array;
}

/**
 * Take the files a tool left in the workdir's `outbox/`: every regular file at its top level
 * (not a directory, not a symbolic link, not a name starting with `.`, which is how a file
 * still being written is hidden) is moved to `outbox-posted/<call id>/` first, so the next
 * call does not find it again, and then read from there, each up to `maxBytes` (a bigger one
 * is returned without bytes). Taking for the same call again reads what that call took before
 * (plus anything new), so a re-run finds the same files. None when there is no outbox.
 */
export async function takeOutboxFiles(
  workdir: string,
  callId: string,
  limits: { maxBytes: number },
): Promise<OutboxFile[]> {
  const outbox = path.join(workdir, outboxDirectory);
  const taken = path.join(workdir, postedDirectory, safeFileName(callId));
  const waiting = await regularFiles(outbox);
  if (waiting.length > 0) {
    await mkdir(taken, { recursive: true });
    for (const name of waiting) await rename(path.join(outbox, name), path.join(taken, name));
  }
  const files: OutboxFile[] = [];
  for (const name of await regularFiles(taken)) {
    const where = path.join(taken, name);
    const { size } = await lstat(where);
    if (size > limits.maxBytes) files.push({ name, size });
    else {
      const bytes = new Uint8Array(await readFile(where));
      files.push({ name, size: bytes.length, bytes });
    }
  }
  return files;
}

/** The regular files directly in `directory`, by name (none when it does not exist). */
async function regularFiles(directory: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const names: string[] = [];
  for (const name of entries.sort()) {
    if (name.startsWith(".")) continue;
    const stats = await lstat(path.join(directory, name));
    if (stats.isFile()) names.push(name);
  }
  return names;
}
