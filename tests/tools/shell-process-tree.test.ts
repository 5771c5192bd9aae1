import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellConfigSchema } from "../../src/config/schema.js";
import { processIsolation } from "../../src/tools/shell/process-namespace.js";
import { ShellToolSource } from "../../src/tools/shell/shell-tool-source.js";
import { isRecordedAlive, killRecorded, type RecordedPid, readRecordedPid, recordPid } from "./recorded-pid.js";
import { waitUntil } from "./wait-until.js";

let workdir: string;
const started: RecordedPid[] = [];

beforeEach(async () => {
  workdir = await realpath(await mkdtemp(path.join(tmpdir(), "roundtable-tree-")));
});

afterEach(async () => {
  // A failing test must not leave its escaped sleep behind.
  for (const record of started.splice(0)) killRecorded(record);
  await rm(workdir, { recursive: true, force: true });
});

type Mode = "pid-namespace" | "marker";

const host = processIsolation();
const modes: Array<{ mode: Mode; skip: string | undefined }> = [
  { mode: "pid-namespace", skip: host.kind === "marker" ? host.reason : undefined },
  { mode: "marker", skip: undefined },
];

const shell = (mode: Mode) =>
  new ShellToolSource(shellConfigSchema.parse({ timeout: "20s" }), {
    killGraceMs: 300,
    isolation: mode === "marker" ? "marker" : "auto",
  });

const record = recordPid("$!", "escaped.pid");

/**
 * `sh -c` scripts (shell_cmd runs no shell itself: the command is `sh`, the script its argument)
 * that start a `sleep 300` escaping the call's process group, recording its pid in `escaped.pid`.
 * `markerMisses`: the marker mode cannot find it (said in the README), only a PID namespace ends it.
 */
const escapes: Record<string, { script: string; markerMisses?: true }> = {
  setsid: { script: `setsid sleep 300 & ${record}` },
  "double fork": { script: `(sleep 300 & ${record}) &` },
  "a new process group": { script: `perl -e 'setpgrp(0, 0); exec "sleep", "300"' & ${record}` },
  "setsid, then a double fork (a daemon)": { script: `setsid sh -c '(sleep 300 & ${record}) &' &` },
  // env -i: no marker; setsid -f: a new session in a forked child, whose parent exits at once, so
  // it is reparented to the host's init (or the namespace's).
  "a cleared environment in a new session, reparented (env -i setsid -f)": {
    script: `env -i setsid -f sh -c '${recordPid("$$", "escaped.pid")}; exec sleep 300'`,
    markerMisses: true,
  },
};

/** Script text that waits until the test has seen the escaped process (so the call does not end first). */
const waitForGo = "while [ ! -e go ]; do sleep 0.02; done";

/** The escaped process, once it has recorded itself and is seen alive; then the script may go on. */
async function escapedProcess(): Promise<RecordedPid> {
  const file = path.join(workdir, "escaped.pid");
  let found: RecordedPid | undefined;
  await waitUntil("the escaped process recorded its pid", () => {
    found = readRecordedPid(file);
    return found !== undefined;
  });
  if (!found) throw new Error("unreachable");
  started.push(found);
  expect(isRecordedAlive(found)).toBe(true);
  writeFileSync(path.join(workdir, "go"), "");
  return found;
}

const context = (signal = new AbortController().signal) => ({ workdir, signal, timeoutMs: 60_000 });

for (const { mode, skip } of modes) {
  describe.skipIf(skip !== undefined)(
    `shell_cmd ends the call's whole process tree (${mode}${skip ? `: skipped, ${skip}` : ""})`,
    () => {
      for (const [name, { script, markerMisses }] of Object.entries(escapes)) {
        const missed = mode === "marker" && markerMisses === true;
        describe.skipIf(missed)(`${name}${missed ? " (skipped: the marker mode cannot find it)" : ""}`, () => {
          it("is gone when the program exits", async () => {
            const running = shell(mode).call(
              "shell_cmd",
              { command: "sh", args: ["-c", `${script}\n${waitForGo}`] },
              context(),
            );
            const escaped = await escapedProcess();
            expect((await running).kind).toBe("ok");
            await waitUntil("the escaped sleep is gone", () => !isRecordedAlive(escaped), 3_000);
          });

          it("is gone at the call's timeout", async () => {
            const running = shell(mode).call(
              "shell_cmd",
              { command: "sh", args: ["-c", `${script}\n${waitForGo}\nsleep 60`], timeoutSeconds: 2 },
              context(),
            );
            const escaped = await escapedProcess();
            expect((await running).kind).toBe("timeout");
            await waitUntil("the escaped sleep is gone", () => !isRecordedAlive(escaped), 3_000);
          });

          it("is gone when the call is aborted (/stop, shutdown)", async () => {
            const controller = new AbortController();
            const running = shell(mode).call(
              "shell_cmd",
              { command: "sh", args: ["-c", `${script}\n${waitForGo}\nsleep 60`] },
              context(controller.signal),
            );
            const escaped = await escapedProcess();
            controller.abort();
            expect((await running).kind).toBe("failed");
            await waitUntil("the escaped sleep is gone", () => !isRecordedAlive(escaped), 3_000);
          });
        });
      }

      it("is gone when the service process exits in the middle of the call", async () => {
        const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
        const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
        const child = spawnSync(
          process.execPath,
          ["--import", loader, path.join(root, "tests/tools/exit-sweep-child.ts"), workdir, mode],
          { cwd: root, encoding: "utf8", timeout: 30_000 },
        );
        expect(child.status, child.stderr).toBe(0);
        const escaped = readRecordedPid(path.join(workdir, "escaped.pid"));
        expect(escaped).toBeDefined();
        if (!escaped) return;
        started.push(escaped);
        await waitUntil("the escaped sleep is gone", () => !isRecordedAlive(escaped), 3_000);
      });
    },
  );
}
