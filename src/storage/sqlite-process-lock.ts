import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { z } from "zod";
import { StorageError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import { parseDatabaseUrl } from "./prisma/database-target.js";

/**
 * One process per SQLite file (docs/architecture.md, "One process per SQLite file"): `start`,
 * `chat` and `migrate` hold `<database file>.lock` while they run. The embedded work queue
 * assumes it is alone: a second process would take back the first one's running steps.
 *
 * The lock file is created with O_EXCL and names its holder (pid, host, command). A lock whose
 * process is gone (same host, pid not alive, or our own pid: a container restarted as pid 1)
 * is stale and taken over with a log line; a lock written on another host cannot be checked and
 * is taken over with a warning. Taking over goes through a second O_EXCL file, so two processes
 * finding the same stale lock cannot both win. Release removes the file only if it is still ours.
 */
export interface SqliteProcessLock {
  /** The lock file; undefined for PostgreSQL (nothing to hold). */
  readonly file: string | undefined;
  release(): void;
}

const holderSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  command: z.string(),
  token: z.string(),
  since: z.string(),
  /** Linux: boot id and the process's start time, so a pid reused after the holder died is not taken for it. */
  incarnation: z.string().optional(),
});

type Holder = z.infer<typeof holderSchema>;

export interface LockOptions {
  databaseUrl: string;
  /** What the holder runs, shown to a second process: `roundtable start`. */
  command: string;
  logger: Logger;
}

/** Takes the database's process lock, or throws `storage.database-in-use` naming its holder. */
export function lockSqliteDatabase(options: LockOptions): SqliteProcessLock {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider !== "sqlite") return { file: undefined, release: () => undefined };
  const file = `${target.path}.lock`;
  mkdirSync(path.dirname(file), { recursive: true });
  const holder: Holder = {
    pid: process.pid,
    host: hostname(),
    command: options.command,
    token: randomUUID(),
    since: new Date().toISOString(),
  };
  const incarnation = incarnationOf(process.pid);
  if (incarnation !== undefined) holder.incarnation = incarnation;
  // A few rounds: the next one follows a takeover of a stale lock (or a holder that just left).
  for (let round = 0; round < 3; round++) {
    if (createExclusive(file, holder)) return heldLock(file, holder);
    const current = readHolder(file);
    if (current === "gone") continue;
    const stale = staleness(current);
    if (stale === undefined && current !== "unreadable") throw inUse(target.path, current);
    takeOver(file, current, () => options.logger.warn({ lockFile: file, ...describe(current) }, stale));
  }
  throw new StorageError("storage.database-in-use", `${target.path}: could not take its lock file ${file}`);
}

function heldLock(file: string, holder: Holder): SqliteProcessLock {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    const current = readHolder(file);
    if (current !== "gone" && current !== "unreadable" && current.token === holder.token) removeQuietly(file);
  };
  // process.exit() (a second Ctrl-C) runs no finally blocks; the lock still goes.
  process.on("exit", release);
  return { file, release };
}

function createExclusive(file: string, content: unknown): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(file, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new StorageError("storage.failed", `cannot create the lock file ${file}`, { cause: error });
  }
  try {
    writeSync(descriptor, `${JSON.stringify(content)}\n`);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

function readHolder(file: string): Holder | "gone" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw new StorageError("storage.failed", `cannot read the lock file ${file}`, { cause: error });
  }
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : "unreadable";
  } catch {
    // A holder that died between creating the file and writing it, or a file someone edited.
    return "unreadable";
  }
}

/** Why a lock may be taken over (the log line), or undefined when its holder is alive. */
function staleness(holder: Holder | "unreadable"): string | undefined {
  if (holder === "unreadable") return "taking over an unreadable database lock file";
  if (holder.host !== hostname()) {
    return `taking over a database lock written on another host (${holder.host}), whose process cannot be checked from here`;
  }
  if (holder.pid === process.pid) return "taking over a stale database lock (an earlier process with this pid)";
  if (!processAlive(holder.pid)) return "taking over a stale database lock (its process is gone)";
  const now = incarnationOf(holder.pid);
  if (holder.incarnation !== undefined && now !== undefined && now !== holder.incarnation) {
    return "taking over a stale database lock (its process is gone; another process has its pid now)";
  }
  return undefined;
}

/** Linux: `<boot id>:<start time in ticks since boot>` of a process; undefined elsewhere. */
function incarnationOf(pid: number): string | undefined {
  try {
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const startTime = fields[19];
    return startTime === undefined ? undefined : `${bootId}:${startTime}`;
  } catch {
    return undefined;
  }
}

/** Replaces a stale lock file, unless someone else is replacing it or it changed meanwhile. */
function takeOver(file: string, seen: Holder | "unreadable", log: () => void): void {
  const guard = `${file}.takeover`;
  if (!createExclusive(guard, { pid: process.pid, host: hostname() })) {
    const other = readHolder(guard);
    // A takeover whose process died half-way: clear it; the next round tries again.
    if (other === "unreadable" || (other !== "gone" && other.host === hostname() && !processAlive(other.pid))) {
      removeQuietly(guard);
    }
    return;
  }
  try {
    const current = readHolder(file);
    const same =
      current === seen || (typeof current === "object" && typeof seen === "object" && current.token === seen.token);
    if (!same) return;
    log();
    removeQuietly(file);
  } finally {
    removeQuietly(guard);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // Linux: a killed process its parent has not reaped yet (a zombie) still answers signal 0.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function describe(holder: Holder | "unreadable"): Record<string, unknown> {
  return holder === "unreadable" ? {} : { pid: holder.pid, host: holder.host, command: holder.command };
}

/** The one line a second process exits with. */
function inUse(databaseFile: string, holder: Holder): StorageError {
  return new StorageError(
    "storage.database-in-use",
    `${databaseFile} is in use by \`${holder.command}\` (pid ${holder.pid}); SQLite allows one Roundtable process per database file: talk to the running service in its web console, or give this command its own DATABASE_URL (DATABASE_URL=file:./data/other.db), or use PostgreSQL`,
  );
}
