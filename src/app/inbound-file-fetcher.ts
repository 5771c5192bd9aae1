import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { resolveWorkdir } from "../agents/workdir.js";
import { type OpenDirectory, openWorkdir, realDirectory } from "../tools/directory-by-descriptor.js";
import type { Logger } from "../log/logger.js";
import type { DownloadAttachment, InboundAttachment } from "../world/inbound.js";
import { formatSize, type InboundFiles, uniqueSafeNames, safeFileName } from "../world/files/inbound-files.js";
import { mediaTypeOf } from "../world/files/media-type-of.js";
import type { MessageFile } from "../world/records.js";

/** The caps of `files` in the config. */
export interface FileLimits {
  /** Bytes per file. */
  maxBytes: number;
  /** Bytes per message, all its files together. */
  maxMessageBytes: number;
  /** Milliseconds per download, redirects included. */
  fetchTimeout: number;
  /** Bytes the world's `inbox/` may hold, the oldest messages' directories removed past it; 0 or absent: no limit. */
  inboxMaxBytes?: number;
}

/**
 * Where a message's files are written before their directory is renamed into `inbox/` (a
 * hidden name: never a message's, whose safe names start with no dot).
 */
const partialDirectory = ".partial";

/** Redirects followed at most (each to the same host). */
const maxRedirects = 3;

/** Why one download gave no bytes; its `reason` is what the chat is told. */
class FileRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Downloads an inbound message's files at ingress, each only from its platform's own host (a
 * redirect elsewhere is refused), capped while reading (per file and per message), within a
 * time limit; types them from their bytes; writes them read-only into the world's workdir.
 */
export class InboundFileFetcher implements InboundFiles {
  constructor(
    private readonly limits: FileLimits,
    private readonly logger: Logger,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async collect(attachments: readonly InboundAttachment[]): Promise<MessageFile[]> {
    const names = uniqueSafeNames(attachments.map((attachment) => attachment.name));
    let budget = this.limits.maxMessageBytes;
    const files: MessageFile[] = [];
    for (const [index, attachment] of attachments.entries()) {
      const name = names[index] ?? safeFileName(attachment.name);
      const cap = Math.min(this.limits.maxBytes, budget);
      const refused = (reason: string): MessageFile => ({
        name,
        mediaType: "application/octet-stream",
        size: "bytes" in attachment ? attachment.bytes.length : (attachment.declaredSize ?? 0),
        refusal: reason,
      });
      if ("bytes" in attachment) {
        // Uploaded with the message: the same caps and typing, no download.
        const bytes = attachment.bytes;
        if (bytes.length > cap) files.push(refused(this.tooBig(cap)));
        else {
          budget -= bytes.length;
          files.push({ name, mediaType: mediaTypeOf(bytes), size: bytes.length, bytes });
        }
        continue;
      }
      if (attachment.declaredSize !== undefined && attachment.declaredSize > cap) {
        files.push(refused(this.tooBig(cap)));
        continue;
      }
      try {
        const bytes = await this.download(attachment, cap);
        budget -= bytes.length;
        files.push({ name, mediaType: mediaTypeOf(bytes), size: bytes.length, bytes });
      } catch (error) {
        const reason =
          error instanceof FileRefused
            ? error.reason
            : error instanceof Error && error.name === "TimeoutError"
              ? `download timed out (${formatDuration(this.limits.fetchTimeout)})`
              : "download failed";
        this.logger.warn(
          { file: name, reason, err: error instanceof FileRefused ? undefined : error },
          "inbound file not taken",
        );
        files.push(refused(reason));
      }
    }
    return files;
  }

  async place(
    world: { name: string; workdir?: string },
    messageId: string,
    files: readonly MessageFile[],
  ): Promise<void> {
    const withBytes = files.filter((file) => file.bytes !== undefined);
    if (withBytes.length === 0) return;
    // By descriptor from the workdir down: an `inbox` a tool replaced by a link is removed, never written through.
    const root = await openWorkdir(await resolveWorkdir(world));
    try {
      const inbox = await realDirectory(root, "inbox", this.logger);
      try {
        const name = safeFileName(messageId);
        await this.placeIn(inbox, name, withBytes);
        const quota = this.limits.inboxMaxBytes ?? 0;
        if (quota > 0) await this.keepWithin(inbox, quota, name);
      } finally {
        await inbox.close();
      }
    } finally {
      await root.close();
    }
  }

  /**
   * Written aside and renamed into place, both inside the verified `inbox/`: `inbox/<id>/` is
   * there complete or not at all, so a crash halfway leaves nothing a later run mistakes for
   * placed files. Each file is created exclusively (`wx`: never through a planted link).
   */
  private async placeIn(inbox: OpenDirectory, name: string, files: readonly MessageFile[]): Promise<void> {
    if (await exists(inbox.entry(name))) return;
    const partial = await realDirectory(inbox, partialDirectory, this.logger);
    try {
      const asideName = `${name}-${randomBytes(6).toString("hex")}`;
      await mkdir(partial.entry(asideName), { mode: 0o755 });
      try {
        const aside = await partial.child(asideName);
        try {
          for (const file of files) {
            await writeFile(aside.entry(file.name), file.bytes ?? new Uint8Array(), { mode: 0o444, flag: "wx" });
          }
        } finally {
          await aside.close();
        }
        await rename(partial.entry(asideName), inbox.entry(name));
      } catch (error) {
        await rm(partial.entry(asideName), { recursive: true, force: true });
        // Another run placed them first (a second process, a redelivery): theirs stand.
        if (await exists(inbox.entry(name))) return;
        throw error;
      }
      // What a run that died halfway left aside for this message goes too.
      for (const entry of await readdir(partial.self())) {
        if (entry.startsWith(`${name}-`)) await rm(partial.entry(entry), { recursive: true, force: true });
      }
    } finally {
      await partial.close();
    }
  }

  /** Remove the oldest messages' directories of `inbox/` until it holds at most `quota` bytes (never `newest`'s). */
  private async keepWithin(inbox: OpenDirectory, quota: number, newest: string): Promise<void> {
    const messages: { name: string; bytes: number; at: number }[] = [];
    for (const name of await readdir(inbox.self())) {
      if (name.startsWith(".")) continue;
      const stats = await lstat(inbox.entry(name));
      if (!stats.isDirectory()) continue;
      let bytes = 0;
      const directory = await inbox.child(name).catch(() => undefined);
      if (directory === undefined) continue;
      try {
        for (const file of await readdir(directory.self())) bytes += (await lstat(directory.entry(file))).size;
      } finally {
        await directory.close();
      }
      messages.push({ name, bytes, at: stats.mtimeMs });
    }
    let total = messages.reduce((sum, message) => sum + message.bytes, 0);
    for (const message of messages.sort((a, b) => a.at - b.at)) {
      if (total <= quota) break;
      if (message.name === newest) continue;
      await rm(inbox.entry(message.name), { recursive: true, force: true });
      total -= message.bytes;
      this.logger.info(
        { messageId: message.name, bytes: message.bytes },
        "inbox over files.inboxMaxBytes: an old message's files left the workdir",
      );
    }
  }

  async placed(world: { name: string; workdir?: string }, messageId: string): Promise<boolean> {
    let root: OpenDirectory;
    try {
      root = await openWorkdir(await resolveWorkdir(world));
    } catch {
      return false;
    }
    try {
      const inbox = await root.child("inbox");
      try {
        return await exists(inbox.entry(safeFileName(messageId)));
      } finally {
        await inbox.close();
      }
    } catch {
      // No inbox, or not a real directory: nothing was placed (placing makes a real one).
      return false;
    } finally {
      await root.close();
    }
  }

  private tooBig(cap: number): string {
    return cap < this.limits.maxBytes
      ? `too big: the message's files are over ${formatSize(this.limits.maxMessageBytes)}`
      : `too big: over ${formatSize(this.limits.maxBytes)}`;
  }

  private async download(attachment: DownloadAttachment, cap: number): Promise<Uint8Array> {
    const signal = AbortSignal.timeout(this.limits.fetchTimeout);
    const location = await attachment.locate();
    let url = new URL(location.url);
    for (let redirects = 0; ; redirects += 1) {
      if (url.host !== attachment.host || !(url.protocol === "https:" || url.protocol === "http:")) {
        throw new FileRefused(redirects === 0 ? "not on the platform's file host" : "redirected to another host");
      }
      const response = await this.fetchImpl(url, {
        redirect: "manual",
        signal,
        ...(location.headers === undefined ? {} : { headers: location.headers }),
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const next = response.headers.get("location");
        if (next === null || redirects >= maxRedirects) throw new FileRefused("download failed (redirects)");
        const target = new URL(next, url);
        // The platform's token goes with every hop: never over plain HTTP once the host spoke TLS.
        if (url.protocol === "https:" && target.protocol !== "https:") {
          throw new FileRefused("redirected from https to http");
        }
        url = target;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new FileRefused(`download failed (HTTP ${response.status})`);
      }
      return readCapped(response, cap, () => this.tooBig(cap));
    }
  }
}

/** Whether `file` is there (a link counts as there: it is never followed). */
async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** `30s`, or `200ms` below a second. */
function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`;
}

/** The body, read until `cap` bytes: one more and the download stops, refused. */
async function readCapped(response: Response, cap: number, tooBig: () => string): Promise<Uint8Array> {
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(announced) && announced > cap) {
    await response.body?.cancel();
    throw new FileRefused(tooBig());
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel();
      throw new FileRefused(tooBig());
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
