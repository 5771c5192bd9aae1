#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=30
// The `roundtable` command: runs the compiled and bundled CLI (dist/bundle/, built by `npm install`'s
// postinstall or `npm run build`) on plain Node. When a source file is newer than the build, it builds first, so
// a clone that was edited never runs stale code.
// The V8 flags (also in package.json's scripts and the Dockerfile) keep memory near what is live:
// a young generation of 8 MiB per half instead of up to 64, and an old generation allowed to grow
// 30 % past what survived the last full collection (docs/operations.md, "Performance").
// On a Node older than the one it runs on (the package's `bin`, `npx` or a global install started
// by a system Node 20), it re-executes itself with the package's own Node (the `node` dependency),
// or says in one line which Node it needs: never a stack from the bundle (docs/deploy.md, "Node and the install").
// Keep this file to syntax and APIs that old Nodes parse.
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const neededMajor = 24;

/** The package's own Node (node_modules/node/bin/node, wherever npm placed it), or undefined. */
function packagedNode() {
  try {
    const binary = path.join(path.dirname(createRequire(import.meta.url).resolve("node/package.json")), "bin", "node");
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

if (Number(process.versions.node.split(".")[0]) < neededMajor) {
  const own = process.env.ROUNDTABLE_REEXECUTED ? undefined : packagedNode();
  if (!own) {
    process.stderr.write(
      `roundtable: needs Node ${neededMajor} or later, and this is Node ${process.versions.node}: run it through the npm scripts (npm start, npm run roundtable -- <command>), which use the package's own Node from node_modules\n`,
    );
    process.exit(1);
  }
  const { spawn } = await import("node:child_process");
  // Ctrl-C in a terminal sends SIGINT to the whole foreground process group, the child included:
  // forwarding it as well would be the child's second signal, which means "exit at once" there
  // (src/cli/wait-for-stop-signal.ts), so SIGINT is left to that delivery. SIGTERM and SIGHUP,
  // sent to this process alone (docker stop, kill <pid>), are passed on. The handlers are in place
  // before the child starts (a signal in between would end this process and orphan the child);
  // they run only after this synchronous block, when `child` is set.
  let child;
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child = spawn(own, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, ROUNDTABLE_REEXECUTED: "1" },
  });
  const [code, signal] = await new Promise((resolve) => {
    child.on("exit", (...result) => resolve(result));
    child.on("error", () => resolve([1, null]));
  });
  process.exit(code ?? (signal ? 128 : 1));
}
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
