import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * A process a shell_cmd command recorded: the pid it saw and the PID namespace it saw it in.
 * shell_cmd may run a call in a PID namespace of its own, where pids are not the host's, so a
 * test finds the process again by (namespace, pid in it, cwd inside the directory it recorded
 * into): the namespace's number may be given to another call's namespace once this one is gone,
 * but that call does not run in this test's directory.
 */
export interface RecordedPid {
  namespace: string;
  pid: number;
  directory: string;
}

/**
 * `sh` text that records the process `pid` (a shell expression: `$!`, `$$`) into `file` (in the
 * current directory) in one step: `pid:[4026531836] 1234`.
 */
export function recordPid(pid: string, file: string): string {
  return `echo "$(readlink /proc/self/ns/pid) ${pid}" > ${file}.part && mv ${file}.part ${file}`;
}

/** The record in `file`, or undefined while there is none. */
export function readRecordedPid(file: string): RecordedPid | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const match = /^(pid:\[\d+\]) (\d+)\n$/.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { namespace: match[1], pid: Number(match[2]), directory: realpathSync(path.dirname(file)) };
}

/** The host pid of the recorded process while it lives (a zombie counts as gone), else undefined. */
export function hostPidOf(record: RecordedPid): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      const innermost = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).at(-1);
      if (Number(innermost) !== record.pid) continue;
      if (/^State:\s+Z/m.test(status)) continue;
      if (readlinkSync(`/proc/${name}/ns/pid`) !== record.namespace) continue;
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === record.directory || cwd.startsWith(`${record.directory}/`)) return Number(name);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return undefined;
}

/** Whether the recorded process is alive. */
export function isRecordedAlive(record: RecordedPid): boolean {
  return hostPidOf(record) !== undefined;
}

/** Kill the recorded process if it still lives (a failing test must not leave it behind). */
export function killRecorded(record: RecordedPid): void {
  const pid = hostPidOf(record);
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
