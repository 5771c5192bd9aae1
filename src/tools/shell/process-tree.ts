import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** The environment variable that marks every process of one call (its value is the call's own). */
const processTreeMarkerName = "ROUNDTABLE_TOOL_CALL";

/** Trees not yet ended: swept when the service process exits, however it exits. */
const liveTrees = new Set<ProcessTree>();
let exitSweepInstalled = false;

/** How many kill-and-look-again rounds an ending takes at most (a fork loop is outrun in a few). */
const maxRounds = 50;

/**
 * The processes one tool call started, found again at the end however they tried to leave:
 * every process of the call carries a marker in its environment (inherited by all it starts,
 * through `setsid`, double forks and new process groups), and is found in `/proc` by it; a
 * process that cleared its environment is found as a child of a marked process or a member of
 * the call's process group. Ending the tree kills what is found, then looks again, until
 * nothing is left. Without `/proc` (not Linux) only the process group is ended.
 */
export class ProcessTree {
  private readonly marker = `${processTreeMarkerName}=${randomUUID()}`;
  private readonly markerBytes = Buffer.from(`${this.marker}\0`);
  private group: number | undefined;

  /** `environment` with this call's marker added. */
  environment(environment: Record<string, string>): Record<string, string> {
    const [name, value] = [processTreeMarkerName, this.marker.slice(processTreeMarkerName.length + 1)];
    return { ...environment, [name]: value };
  }

  /** The program started (in a process group of its own, led by `pid`): swept at the service's exit. */
  started(pid: number): void {
    this.group = pid;
    liveTrees.add(this);
    installExitSweep();
  }

  /** Send `signal` to every process of the tree (and its group), once. */
  signal(signal: NodeJS.Signals): void {
    this.signalGroup(signal);
    for (const pid of this.members()) sendSignal(pid, signal);
  }

  /** Kill every process of the tree, looking again until none is left. Synchronous (also used at exit). */
  end(): void {
    for (let round = 0; round < maxRounds; round++) {
      this.signalGroup("SIGKILL");
      const found = this.members();
      if (found.length === 0) break;
      for (const pid of found) sendSignal(pid, "SIGKILL");
    }
    // The group is empty now: its number may be given to an unrelated process from here on.
    this.group = undefined;
    liveTrees.delete(this);
  }

  /** The tree's live processes now (never this process). */
  members(): number[] {
    const processes = listProcesses();
    if (!processes) return [];
    const members = new Set<number>();
    for (const entry of processes) {
      if (entry.pid === process.pid || entry.state === "Z") continue;
      if ((this.group !== undefined && entry.group === this.group) || this.isMarked(entry.pid)) members.add(entry.pid);
    }
    // Children of members (one that cleared its environment is still its parent's child).
    let grown = true;
    while (grown) {
      grown = false;
      for (const entry of processes) {
        if (entry.state === "Z" || entry.pid === process.pid || members.has(entry.pid)) continue;
        if (members.has(entry.parent)) {
          members.add(entry.pid);
          grown = true;
        }
      }
    }
    return [...members];
  }

  private isMarked(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(this.markerBytes);
    } catch {
      return false; // gone, or not ours to read
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.group !== undefined) sendSignal(-this.group, signal);
  }
}

interface ProcessEntry {
  pid: number;
  parent: number;
  group: number;
  state: string;
}

/** Every process in `/proc` with its parent, group and state; undefined without `/proc`. */
function listProcesses(): ProcessEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const entries: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      entries.push({ pid: Number(name), state: fields[0] ?? "", parent: Number(fields[1]), group: Number(fields[2]) });
    } catch {
      // Gone meanwhile.
    }
  }
  return entries;
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function installExitSweep(): void {
  if (exitSweepInstalled) return;
  exitSweepInstalled = true;
  process.once("exit", () => {
    for (const tree of [...liveTrees]) tree.end();
  });
}
