import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openTestStore } from "../world/harness.js";

const root = path.resolve(import.meta.dirname, "../..");
// Node itself with tsx's loader (not the tsx CLI, which runs a second process a SIGKILL would not reach).
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/hooks/hook-kill-child.ts");

function runChild(args: string[], until?: RegExp): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", loader, child, ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buffer = "";
    let stderr = "";
    process_.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let index = buffer.indexOf("\n"); index >= 0; index = buffer.indexOf("\n")) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(line);
        if (until?.test(line)) process_.kill("SIGKILL");
      }
    });
    process_.on("error", reject);
    process_.on("exit", (code) => resolve({ lines, code, stderr }));
  });
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

describe("a process killed while a hook decides a tool call", () => {
  it("the next process asks again, stores one outcome and runs the call once; a third asks nothing", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "rt-hook-kill-"));
    const url = `file:${path.join(directory, "roundtable.db")}`;
    const first = await runChild(["first", url, directory], /HOOK_DECIDING/);
    expect(first.code).toBeNull(); // killed while the hook was deciding
    expect(lines(path.join(directory, "calls.txt"))).toHaveLength(1);
    expect(lines(path.join(directory, "runs.txt"))).toHaveLength(0);

    writeFileSync(path.join(directory, "release"), "");
    const second = await runChild(["resume", url, directory]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.lines).toContain('RESULTS ["ok"]');
    expect(lines(path.join(directory, "calls.txt"))).toHaveLength(2);
    expect(lines(path.join(directory, "runs.txt"))).toEqual(["run"]);

    const third = await runChild(["resume", url, directory]);
    expect(third.code, third.stderr).toBe(0);
    expect(lines(path.join(directory, "calls.txt"))).toHaveLength(2);
    expect(lines(path.join(directory, "runs.txt"))).toEqual(["run"]);

    const { store, close } = await openTestStore(url);
    try {
      const [turn] = await store.listTurns({});
      const outcome = await store.getHookOutcome(`tool_call:${turn?.id}:1`);
      expect(outcome?.outcome).toBe("replaced");
    } finally {
      await close();
    }
  });
});
