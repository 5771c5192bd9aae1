import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Poll `condition` until it holds; fail with `what` after `limitMs` (a safety net, not a measurement). */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  limitMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

/**
 * Whether a process id is alive (signal 0 probes without sending). A zombie (killed, waiting to
 * be reaped by an init that may be slow to do so) counts as dead.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}
