import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 on Linux). */
const ticksPerSecond = 100;

interface ProcessEntry {
  pid: number;
  parent: number;
  cpuTicks: number;
  rssBytes: number;
}

function readEntry(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    return {
      pid,
      parent: Number(fields[1]),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
      rssBytes: rss ? Number(rss[1]) * 1024 : 0,
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** A process and all its descendants, as they are now (Linux `/proc`). */
export function processTree(root: number): ProcessEntry[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readEntry(Number(name)))
    .filter((entry): entry is ProcessEntry => entry !== undefined);
  const tree: ProcessEntry[] = [];
  const wanted = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of all) {
      if ((entry.pid === root || wanted.has(entry.parent)) && !tree.includes(entry)) {
        tree.push(entry);
        wanted.add(entry.pid);
        grew = true;
      }
    }
  }
  return tree;
}

/** Resident memory of the process tree, in MiB. */
export function treeRssMebibytes(root: number): number {
  return processTree(root).reduce((sum, entry) => sum + entry.rssBytes, 0) / 2 ** 20;
}

/** CPU time (user + system) used so far by the process tree, in milliseconds. */
export function treeCpuMilliseconds(root: number): number {
  return (processTree(root).reduce((sum, entry) => sum + entry.cpuTicks, 0) / ticksPerSecond) * 1000;
}

/** CPU time (user + system) one process used so far, in milliseconds; undefined when it is gone or unreadable. */
export function processCpuMilliseconds(pid: number): number | undefined {
  const entry = readEntry(pid);
  return entry === undefined ? undefined : (entry.cpuTicks / ticksPerSecond) * 1000;
}

/** CPU time (user + system) so far of each thread of a process, in milliseconds, by thread name (summed over same names). */
export function threadCpuMilliseconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}
