import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Logger } from "../log/logger.js";

/**
 * Hands back to the system what the start used and no longer needs, once the service is up.
 *
 * Starting allocates far more than stays live (compiling, the config's and the SDKs' schemas
 * being built, migrations checked, recovery's queries), so V8 grows its young generation to
 * its limit and its old one past what survives. It shrinks them again only in a collection
 * made to reduce memory, and measured, none comes by itself in an idle service (its resident
 * memory did not move in 20 s). One such collection here (tens of milliseconds, once the
 * channels are up) makes the idle process about 12 MiB smaller (docs/performance.md, "Idle
 * memory").
 */
export function releaseStartMemory(logger: Logger): void {
  const before = process.memoryUsage();
  const startedAt = performance.now();
  // This collection also drops the bytecode of every function not running now: most of it was
  // compiled for the start only (the config's checks, migrations, recovery, the channels' and
  // MCP servers' setup), and a function needed again is compiled again from its source, once.
  // V8 flushes bytecode by itself only after several collections, and an idle process has none.
  // (Async functions and generators keep theirs.) About 2.5 MiB of heap and of resident memory.
  setFlagsFromString("--stress-flush-code");
  try {
    collectGarbage()({ type: "major", execution: "sync", flavor: "last-resort" });
  } finally {
    setFlagsFromString("--no-stress-flush-code");
  }
  const after = process.memoryUsage();
  const mebibytes = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  logger.debug(
    {
      milliseconds: Math.round(performance.now() - startedAt),
      heapTotalMiB: { before: mebibytes(before.heapTotal), after: mebibytes(after.heapTotal) },
      heapUsedMiB: { before: mebibytes(before.heapUsed), after: mebibytes(after.heapUsed) },
      rssMiB: { before: mebibytes(before.rss), after: mebibytes(after.rss) },
    },
    "start's garbage released",
  );
}

/**
 * V8's `gc` function: the global one when Node runs with `--expose-gc`, else one taken from a
 * fresh context with the flag on just for it (the process's own global stays without `gc`).
 */
function collectGarbage(): NodeJS.GCFunction {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as NodeJS.GCFunction;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}
