import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Why dist/bundle/ could not be built ("" when it is up to date): the bundle tests fail with it. */
    bundleProblem: string;
  }
}

const root = path.resolve(import.meta.dirname, "..");
const stamp = path.join(root, "dist", ".tsbuildinfo");
const main = path.join(root, "dist", "bundle", "main.js");

/**
 * Vitest global setup: the CLI tests that run what users run (`dist/bundle/main.js`, tests/cli/
 * run-bundle.ts) need it built from the current sources. It is rebuilt once here, before any
 * test file starts, when a source or build script is newer than the last build (the same rule
 * as bin/roundtable.js). A failed build does not stop other suites: the bundle tests fail with it.
 */
export default function setup(project: TestProject): void {
  project.provide("bundleProblem", stale() ? build() : "");
}

function stale(): boolean {
  if (!existsSync(main) || !existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return ["src", "channels", "scripts"].some((folder) => newest(path.join(root, folder)) > built);
}

function newest(directory: string): number {
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated") latest = Math.max(latest, newest(full));
    } else latest = Math.max(latest, statSync(full).mtimeMs);
  }
  return latest;
}

function build(): string {
  const built = spawnSync(process.execPath, [path.join(root, "scripts", "build.mjs")], {
    cwd: root,
    encoding: "utf8",
  });
  if (built.status === 0) return "";
  return `npm run build failed (exit ${built.status ?? built.signal}):\n${built.stdout}${built.stderr}`;
}
