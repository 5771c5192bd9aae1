import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// bin/roundtable.js started by a Node older than the one it needs (the package's `bin`, `npx`, a
// global install run by the machine's Node 20): before, the bundle died with a raw
// "SyntaxError ... enableCompileCache" stack. It now re-executes itself with the package's own Node
// or, when there is none, says in one line which Node it needs.

const root = path.resolve(import.meta.dirname, "..", "..");
const bin = path.join(root, "bin", "roundtable.js");

/** The first Node older than 24 on this machine (the system's Node 20 at /usr/bin/node). */
function oldNode(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"]) {
    const run = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" });
    if (run.status === 0 && Number(run.stdout.trim().split(".")[0]) < 24) return candidate;
  }
  return undefined;
}

const old = oldNode();
const scratch = mkdtempSync(path.join(tmpdir(), "roundtable-old-node-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(old === undefined)("bin/roundtable.js under an old Node", () => {
  it("re-executes itself with the package's own Node", () => {
    const run = spawnSync(old as string, [bin, "--version"], { encoding: "utf8", env: { ...process.env } });
    expect(run.stderr).not.toMatch(/SyntaxError|at /);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^roundtable \d+\.\d+\.\d+/);
  });

  it("says in one line which Node it needs when the package has no Node of its own", () => {
    // A copy of the launcher with no node_modules beside it: the `node` dependency is missing
    // (npm 12 skipped its install script, or it was never installed).
    mkdirSync(path.join(scratch, "bin"), { recursive: true });
    copyFileSync(bin, path.join(scratch, "bin", "roundtable.js"));
    const run = spawnSync(old as string, [path.join(scratch, "bin", "roundtable.js"), "start"], {
      encoding: "utf8",
      cwd: scratch,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^roundtable: needs Node 24 or later, and this is Node 2\d\.\d+\.\d+: run it through the npm scripts \(npm start/,
    );
  });
});
