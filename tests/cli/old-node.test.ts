import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

  it("leaves SIGINT to the terminal's delivery (the Node it started gets Ctrl-C too) and passes SIGTERM on", async () => {
    // Ctrl-C reaches the launcher and the Node it started alike (one process group); the launcher
    // used to pass its copy on as well, a second SIGINT, which the service takes for "exit at
    // once". Here the package's own Node is a stand-in that counts the SIGINTs it gets.
    const copy = path.join(scratch, "forwarding");
    mkdirSync(path.join(copy, "bin"), { recursive: true });
    mkdirSync(path.join(copy, "node_modules", "node", "bin"), { recursive: true });
    copyFileSync(bin, path.join(copy, "bin", "roundtable.js"));
    writeFileSync(path.join(copy, "node_modules", "node", "package.json"), '{ "name": "node", "version": "24.0.0" }\n');
    const standIn = path.join(copy, "node_modules", "node", "bin", "node");
    writeFileSync(
      standIn,
      [
        "#!/bin/sh",
        "ints=0",
        "trap 'ints=$((ints+1))' INT",
        `trap 'echo "SIGINTS $ints"; exit 0' TERM`,
        "echo READY",
        "while :; do sleep 0.05; done",
        "",
      ].join("\n"),
    );
    chmodSync(standIn, 0o755);
    const { ROUNDTABLE_REEXECUTED: _, ...env } = process.env;
    const launcher = spawn(old as string, [path.join(copy, "bin", "roundtable.js"), "start"], {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stdout = "";
    const exited = new Promise<number | null>((resolve) => launcher.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      launcher.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("READY")) resolve();
      });
      launcher.on("exit", () => reject(new Error("the launcher exited before its child was up")));
    });
    // To the launcher alone: a SIGINT it must not pass on, then a SIGTERM it must.
    launcher.kill("SIGINT");
    launcher.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout.trim().split("\n")).toEqual(["READY", "SIGINTS 0"]);
  }, 60_000);

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
