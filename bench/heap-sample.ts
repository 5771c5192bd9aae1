/**
 * `npm run bench -- --heap-sample FILE`: what the service allocates during the load (V8's
 * sampling heap profiler, collected objects included; bench/heap-sample-preload.mjs), and
 * `npx tsx bench/heap-sample.ts FILE [MESSAGES]` to print the largest allocators: by function
 * (self) and by package or source file, in bytes per message.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const preload = fileURLToPath(new URL("./heap-sample-preload.mjs", import.meta.url));

/** The service's environment for a heap sample written to `file` (with other `node` options). */
export function heapSampleEnv(file: string, nodeOptions = ""): Record<string, string> {
  return {
    ROUNDTABLE_BENCH_HEAP_SAMPLE: path.resolve(file),
    NODE_OPTIONS: `${nodeOptions} --import ${preload}`.trim(),
  };
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function where(url: string): string {
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  return url.replace(/^file:\/\/.*?\/(dist|src)\//, "$1/") || "(native)";
}

function summarize(file: string, messages: number): void {
  const head = JSON.parse(readFileSync(file, "utf8")) as { head: HeapNode };
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode, stack: string) => {
    const frame = node.callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${where(frame.url)}:${frame.lineNumber + 1}`;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const key = `${name}  <  ${stack}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
      const place = where(frame.url);
      byPlace.set(place, (byPlace.get(place) ?? 0) + node.selfSize);
    }
    const parentName = frame.functionName || "(anonymous)";
    for (const child of node.children)
      visit(child, parentName === "(root)" ? "" : `${parentName} ${where(frame.url)}:${frame.lineNumber + 1}`);
  };
  visit(head.head, "");
  const kib = (bytes: number) => `${(bytes / 1024 / messages).toFixed(1)} KiB`;
  console.log(`allocated: ${kib(total)} a message (sampled)`);
  const top = (map: Map<string, number>, count: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  console.log("\nby package or file:");
  for (const [key, bytes] of top(byPlace, 25)) console.log(`${kib(bytes).padStart(12)}  ${key}`);
  console.log("\nby function (< its caller):");
  for (const [key, bytes] of top(byFunction, 40)) console.log(`${kib(bytes).padStart(12)}  ${key}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [file, messages] = process.argv.slice(2);
  if (!file) throw new Error("usage: npx tsx bench/heap-sample.ts FILE [MESSAGES]");
  summarize(file, Number(messages ?? 1));
}
