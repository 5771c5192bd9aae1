import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellConfigSchema } from "../../src/config/schema.js";
import { ShellToolSource } from "../../src/tools/shell/shell-tool-source.js";
import { isAlive, waitUntil } from "./wait-until.js";

let workdir: string;
const started: number[] = [];

beforeEach(async () => {
  workdir = await realpath(await mkdtemp(path.join(tmpdir(), "roundtable-tree-")));
});

afterEach(async () => {
  // A failing test must not leave its escaped sleep behind.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
  await rm(workdir, { recursive: true, force: true });
});

const shell = () => new ShellToolSource(shellConfigSchema.parse({ timeout: "20s" }), { killGraceMs: 300 });

/**
 * `sh -c` scripts (shell_cmd runs no shell itself: the command is `sh`, the script its argument)
 * that start a `sleep 300` escaping the call's process group, writing its pid to `escaped.pid`.
 */
const escapes: Record<string, string> = {
  setsid: "setsid sleep 300 & echo $! > escaped.pid",
  "double fork": "(sleep 300 & echo $! > escaped.pid) &",
  "a new process group": 'perl -e \'setpgrp(0, 0); exec "sleep", "300"\' & echo $! > escaped.pid',
  "setsid, then a double fork (a daemon)": "setsid sh -c '(sleep 300 & echo $! > escaped.pid) &' &",
};

async function escapedPid(): Promise<number> {
  const file = path.join(workdir, "escaped.pid");
  let pid = 0;
  await waitUntil("the escaped process wrote its pid", () => {
    if (!existsSync(file)) return false;
    pid = Number(readFileSync(file, "utf8").trim());
    return pid > 0;
  });
  started.push(pid);
  return pid;
}

describe("shell_cmd ends the call's whole process tree", () => {
  for (const [name, script] of Object.entries(escapes)) {
    describe(name, () => {
      it("is gone when the program exits", async () => {
        const outcome = await shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", `${script}\nsleep 0.2`] },
          { workdir, signal: new AbortController().signal, timeoutMs: 60_000 },
        );
        expect(outcome.kind).toBe("ok");
        const pid = await escapedPid();
        await waitUntil("the escaped sleep is gone", () => !isAlive(pid), 3_000);
      });

      it("is gone at the call's timeout", async () => {
        const outcome = await shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", `${script}\nsleep 60`], timeoutSeconds: 1 },
          { workdir, signal: new AbortController().signal, timeoutMs: 60_000 },
        );
        expect(outcome.kind).toBe("timeout");
        const pid = await escapedPid();
        await waitUntil("the escaped sleep is gone", () => !isAlive(pid), 3_000);
      });

      it("is gone when the call is aborted (/stop, shutdown)", async () => {
        const controller = new AbortController();
        const running = shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", `${script}\nsleep 60`] },
          { workdir, signal: controller.signal, timeoutMs: 60_000 },
        );
        const pid = await escapedPid();
        expect(isAlive(pid)).toBe(true);
        controller.abort();
        expect((await running).kind).toBe("failed");
        await waitUntil("the escaped sleep is gone", () => !isAlive(pid), 3_000);
      });
    });
  }

  it("is gone when the service process exits in the middle of the call", async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
    const child = spawnSync(
      process.execPath,
      ["--import", loader, path.join(root, "tests/tools/exit-sweep-child.ts"), workdir],
      { cwd: root, encoding: "utf8", timeout: 30_000 },
    );
    expect(child.status, child.stderr).toBe(0);
    const pid = await escapedPid();
    await waitUntil("the escaped sleep is gone", () => !isAlive(pid), 3_000);
  });
});
