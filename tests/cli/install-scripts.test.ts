import { spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repositoryRoot } from "./run-roundtable.js";

// `.ci/run`'s install-script gate (scripts/check-install-scripts.mjs, #45): a dependency whose
// install script package.json's `allowScripts` does not cover fails it, and so does an entry
// that names nothing with a script; the clone's own lockfile passes.

const script = path.join(repositoryRoot, "scripts", "check-install-scripts.mjs");
let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** The script run on a package.json and lockfile of our own (it reads the folder above it). */
async function gate(allowScripts: Record<string, boolean>, packages: Record<string, Record<string, unknown>>) {
  scratch = await mkdtemp(path.join(tmpdir(), "roundtable-install-scripts-"));
  await mkdir(path.join(scratch, "scripts"));
  await copyFile(script, path.join(scratch, "scripts", "check-install-scripts.mjs"));
  await writeFile(path.join(scratch, "package.json"), JSON.stringify({ name: "x", allowScripts }));
  await writeFile(path.join(scratch, "package-lock.json"), JSON.stringify({ packages: { "": {}, ...packages } }));
  return spawnSync(process.execPath, [path.join(scratch, "scripts", "check-install-scripts.mjs")], {
    encoding: "utf8",
  });
}

describe("the install-script gate", () => {
  it("passes this clone's lockfile, naming each reviewed package and version", async () => {
    const run = spawnSync(process.execPath, [script], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const allowed = Object.keys(
      JSON.parse(await readFile(path.join(repositoryRoot, "package.json"), "utf8")).allowScripts,
    );
    for (const name of allowed) expect(run.stdout).toContain(`${name}@`);
  });

  it("fails on a dependency whose install script is not covered, and on an entry with no script behind it", async () => {
    const uncovered = await gate(
      { esbuild: true },
      {
        "node_modules/esbuild": { version: "0.28.2", hasInstallScript: true },
        "node_modules/new-native-thing": { version: "1.0.0", hasInstallScript: true },
        "node_modules/plain": { version: "2.0.0" },
      },
    );
    expect(uncovered.status).toBe(1);
    expect(uncovered.stderr).toContain("new-native-thing@1.0.0 has an install script not covered by allowScripts");
    expect(uncovered.stderr).not.toContain("esbuild");
    const stale = await gate({ plain: true }, { "node_modules/plain": { version: "2.0.0" } });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain("allowScripts names plain, which has no install script");
  });
});
