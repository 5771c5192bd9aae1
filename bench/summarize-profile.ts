/**
 * `npx tsx bench/summarize-profile.ts FILE.cpuprofile`: self time by package or source folder,
 * largest first (where a CPU profile of the service spends its time).
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

const file = process.argv[2];
if (!file) throw new Error("usage: summarize-profile FILE.cpuprofile");
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
for (const [index, id] of profile.samples.entries()) {
  const node = byId.get(id);
  const delta = profile.timeDeltas[index] ?? 0;
  total += delta;
  const url = node?.callFrame.url ?? "";
  const area =
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
    /\/(src\/[^/]+|channels\/[^/]+|src\/storage\/prisma\/generated)\//.exec(url)?.[1] ??
    (url === "" ? `(${node?.callFrame.functionName || "native"})` : url.replace(/^.*\//, ""));
  byArea.set(area, (byArea.get(area) ?? 0) + delta);
  const name = `${node?.callFrame.functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^.*\/(src|channels)\//, "$1/")}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
}
const print = (title: string, entries: Map<string, number>, count: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, time] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count))
    process.stdout.write(`${((time / total) * 100).toFixed(1).padStart(5)} %  ${name}\n`);
};
print(`by area (${(total / 1e6).toFixed(1)} s sampled)`, byArea, 25);
print("by function (self)", byFunction, 30);
