#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=30
// The `roundtable` command: runs the compiled and bundled CLI (dist/bundle/, built by `npm install`'s
// postinstall or `npm run build`) on plain Node. When a source file is newer than the build, it builds first, so
// a clone that was edited never runs stale code.
// The V8 flags (also in package.json's scripts and the Dockerfile) keep memory near what is live:
// a young generation of 8 MiB per half instead of up to 64, and an old generation allowed to grow
// 30 % past what survived the last full collection (README, "Performance").
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const main = path.join(root, "dist", "bundle", "main.js");
const stamp = path.join(root, "dist", ".tsbuildinfo");

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated") newest = Math.max(newest, newestSource(full));
    } else newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function stale() {
  if (!existsSync(main) || !existsSync(stamp)) return true;
  if (!existsSync(path.join(root, "src"))) return false;
  const built = statSync(stamp).mtimeMs;
  return ["src", "channels"].some((folder) => newestSource(path.join(root, folder)) > built);
}

if (stale()) {
  process.stderr.write("roundtable: building dist/ (sources changed since the last build)\n");
  // Loaded only here: a start with an up-to-date build does not need child_process.
  const { spawnSync } = await import("node:child_process");
  const built = spawnSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import(pathToFileURL(main).href);
