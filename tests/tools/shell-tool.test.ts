import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { shellConfigSchema } from "../../src/config/schema.js";
import { processIsolation } from "../../src/tools/shell/process-namespace.js";
import { ShellToolSource, type ShellToolOptions } from "../../src/tools/shell/shell-tool-source.js";
import type { ToolRunContext } from "../../src/tools/tool-source.js";
import { capturedLogger } from "./captured-logger.js";
import { isRecordedAlive, readRecordedPid, recordPid } from "./recorded-pid.js";
import { waitUntil } from "./wait-until.js";

let root: string;
let workdir: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "roundtable-shell-")));
  workdir = path.join(root, "world");
  await mkdir(workdir);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

type Mode = "pid-namespace" | "marker";
const host = processIsolation();
/** Every test runs in both modes (the namespace one where the host allows it). */
const modes: Array<{ mode: Mode; skip: string | undefined }> = [
  { mode: "pid-namespace", skip: host.kind === "marker" ? host.reason : undefined },
  { mode: "marker", skip: undefined },
];
let mode: Mode = "marker";

function shell(config: Record<string, unknown> = {}, options: ShellToolOptions = {}): ShellToolSource {
  return new ShellToolSource(shellConfigSchema.parse({ timeout: "20s", ...config }), {
    killGraceMs: 500,
    isolation: mode === "marker" ? "marker" : "auto",
    ...options,
  });
}

/** The recorded process in `file` of the workdir, once it is there. */
async function recorded(file: string) {
  let found: ReturnType<typeof readRecordedPid>;
  await waitUntil(`${file} is written`, () => {
    found = readRecordedPid(path.join(workdir, file));
    return found !== undefined;
  });
  if (!found) throw new Error("unreachable");
  return found;
}

function context(overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  return { workdir, signal: new AbortController().signal, timeoutMs: 60_000, ...overrides };
}

for (const { mode: thisMode, skip } of modes)
  describe.skipIf(skip !== undefined)(`shell_cmd (${thisMode}${skip ? `: skipped, ${skip}` : ""})`, () => {
    beforeAll(() => {
      mode = thisMode;
    });

    it("offers one tool with a closed input schema", () => {
      const [definition, ...others] = shell().list();
      expect(others).toEqual([]);
      expect(definition?.name).toBe("shell_cmd");
      expect(definition?.inputSchema).toMatchObject({ required: ["command"], additionalProperties: false });
    });

    it("offers nothing when turned off", async () => {
      const source = shell({ enabled: false });
      expect(source.list()).toEqual([]);
      expect((await source.call("shell_cmd", { command: "echo" }, context())).kind).toBe("failed");
    });

    it("runs echo and reports exit code, stdout and stderr in a fixed format", async () => {
      const outcome = await shell().call("shell_cmd", { command: "echo", args: ["hello world"] }, context());
      expect(outcome).toEqual({ kind: "ok", text: "exit code: 0\nstdout:\nhello world\nstderr: (empty)" });
    });

    it("passes arguments untouched: no shell expands spaces, $, globs or ;", async () => {
      const args = ["%s|", "a  b", "$HOME", "*", "; rm -rf .", "'quoted'"];
      const outcome = await shell().call("shell_cmd", { command: "printf", args }, context());
      expect(outcome.text).toBe("exit code: 0\nstdout:\na  b|$HOME|*|; rm -rf .|'quoted'|\nstderr: (empty)");
    });

    it("runs sh -c like any other command, and a non-zero exit is an ok outcome", async () => {
      const outcome = await shell().call(
        "shell_cmd",
        { command: "sh", args: ["-c", "echo $((1+2)); echo oops >&2; exit 3"] },
        context(),
      );
      expect(outcome).toEqual({ kind: "ok", text: "exit code: 3\nstdout:\n3\nstderr:\noops" });
    });

    it("reports a program that a signal ended", async () => {
      const outcome = await shell().call(
        "shell_cmd",
        { command: "sh", args: ["-c", "echo bye; kill -TERM $$"] },
        context(),
      );
      expect(outcome).toEqual({
        kind: "ok",
        text: "exit code: none (ended by signal SIGTERM)\nstdout:\nbye\nstderr: (empty)",
      });
    });

    it("says in its description only what holds in the mode in effect", () => {
      const description = shell().list()[0]?.description ?? "";
      if (mode === "pid-namespace") {
        expect(description).toContain("runs in a PID namespace of its own");
        expect(description).not.toContain("marker");
      } else {
        expect(description).toContain("a marker in the environment they inherited");
        expect(description).not.toContain("namespace");
      }
    });

    it("logs the mode in effect once, when it is made (a warning with the reason for the marker)", () => {
      const { logger, lines } = capturedLogger();
      shell({}, { logger });
      expect(lines.map(({ level, msg, isolation }) => ({ level, msg, isolation }))).toEqual([
        mode === "pid-namespace"
          ? {
              level: 30,
              msg: "shell_cmd runs each call in a PID namespace of its own, sandbox: private",
              isolation: "pid-namespace",
            }
          : {
              level: 40,
              msg:
                "shell_cmd finds a call's processes by an environment marker (no PID namespace): one that clears its " +
                "environment, leaves its session and its parent can outlive the call; no sandbox: calls see the service's own files",
              isolation: "marker",
            },
      ]);
      expect(lines[0]?.reason).toBe(mode === "marker" ? "chosen by the caller" : undefined);
    });

    it("gives the command an empty stdin", async () => {
      const outcome = await shell().call("shell_cmd", { command: "cat" }, context());
      expect(outcome).toEqual({ kind: "ok", text: "exit code: 0\nstdout: (empty)\nstderr: (empty)" });
    });

    it("says when a command cannot be found (failed, with the cause)", async () => {
      const byName = await shell().call("shell_cmd", { command: "no-such-command-roundtable" }, context());
      expect(byName.kind).toBe("failed");
      expect(byName.text).toContain("command not found");
      const byPath = await shell().call("shell_cmd", { command: "./missing.sh" }, context());
      expect(byPath).toEqual({ kind: "failed", text: 'could not start "./missing.sh": no such file (ENOENT)' });
    });

    it("refuses arguments that do not fit the schema", async () => {
      const outcome = await shell().call("shell_cmd", { command: 5 }, context());
      expect(outcome).toEqual({ kind: "error", text: "invalid arguments: /command must be string" });
    });

    describe("working directory", () => {
      it("runs in the world's workdir, creating it when missing", async () => {
        const fresh = path.join(root, "new", "world");
        const outcome = await shell().call("shell_cmd", { command: "pwd" }, context({ workdir: fresh }));
        expect(outcome.text).toBe(`exit code: 0\nstdout:\n${fresh}\nstderr: (empty)`);
        expect(existsSync(fresh)).toBe(true);
      });

      it("takes cwd relative to the workdir, and an absolute path inside it", async () => {
        await mkdir(path.join(workdir, "sub", "deeper"), { recursive: true });
        const relative = await shell().call("shell_cmd", { command: "pwd", cwd: "sub/../sub/deeper" }, context());
        expect(relative.text).toContain(`stdout:\n${workdir}/sub/deeper\n`);
        const absolute = await shell().call("shell_cmd", { command: "pwd", cwd: path.join(workdir, "sub") }, context());
        expect(absolute.text).toContain(`stdout:\n${workdir}/sub\n`);
      });

      it("refuses .. and absolute paths that leave the workdir", async () => {
        for (const cwd of ["..", "sub/../../", "/", root]) {
          const outcome = await shell().call("shell_cmd", { command: "pwd", cwd }, context());
          expect(outcome).toEqual({
            kind: "error",
            text: `cwd ${JSON.stringify(cwd)} is outside the working directory`,
          });
        }
      });

      it("refuses a symbolic link that points outside", async () => {
        await mkdir(path.join(root, "outside"));
        await symlink(path.join(root, "outside"), path.join(workdir, "escape"));
        const outcome = await shell().call("shell_cmd", { command: "pwd", cwd: "escape" }, context());
        expect(outcome).toEqual({
          kind: "error",
          text: 'cwd "escape" leads outside the working directory (through a symbolic link)',
        });
      });

      it("refuses a cwd that does not exist or is a file", async () => {
        await writeFile(path.join(workdir, "file.txt"), "x");
        expect(await shell().call("shell_cmd", { command: "pwd", cwd: "nope" }, context())).toEqual({
          kind: "error",
          text: 'cwd "nope" does not exist in the working directory',
        });
        expect(await shell().call("shell_cmd", { command: "pwd", cwd: "file.txt" }, context())).toEqual({
          kind: "error",
          text: 'cwd "file.txt" is not a directory',
        });
      });
    });

    describe("timeout", () => {
      it("stops sleep 30 with a timeout outcome and kills the process group", async () => {
        const outcome = await shell().call(
          "shell_cmd",
          {
            command: "sh",
            args: ["-c", `sleep 30 & ${recordPid("$!", "sleeper.pid")}; echo started; wait`],
            timeoutSeconds: 1.5,
          },
          context(),
        );
        expect(outcome).toEqual({
          kind: "timeout",
          text: "sh did not finish within 1.5s and was stopped\nstdout:\nstarted\nstderr: (empty)",
        });
        const sleeper = await recorded("sleeper.pid");
        await waitUntil("the background sleep is gone", () => !isRecordedAlive(sleeper));
      });

      it("sends SIGTERM first: a program that handles it finishes its own way", async () => {
        const script = "trap 'echo got TERM; exit 7' TERM; echo waiting; while :; do sleep 0.05; done";
        const outcome = await shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", script], timeoutSeconds: 1 },
          context(),
        );
        expect(outcome.kind).toBe("timeout");
        // (sh may also say on stderr that its sleep was terminated: that one got SIGTERM too.)
        expect(outcome.text).toMatch(
          /^sh did not finish within 1s and was stopped\nstdout:\nwaiting\ngot TERM\nstderr:/,
        );
      });

      it("caps the call's timeoutSeconds at tools.shell.timeout", async () => {
        const outcome = await shell({ timeout: "1s" }).call(
          "shell_cmd",
          { command: "sleep", args: ["30"], timeoutSeconds: 600 },
          context(),
        );
        expect(outcome).toEqual({
          kind: "timeout",
          text: "sleep did not finish within 1s and was stopped\nstdout: (empty)\nstderr: (empty)",
        });
      });

      it("ends what a finished command left running in its group", async () => {
        const outcome = await shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", `sleep 30 & ${recordPid("$!", "sleeper.pid")}`] },
          context(),
        );
        expect(outcome.kind).toBe("ok");
        const sleeper = await recorded("sleeper.pid");
        await waitUntil("the left-behind sleep is gone", () => !isRecordedAlive(sleeper));
      });
    });

    it("caps stdout and stderr each, cutting the middle and saying how much", async () => {
      const source = shell({ maxOutputBytes: 256 });
      const outcome = await source.call(
        "shell_cmd",
        { command: "sh", args: ["-c", "seq 1 2000; seq 1 2000 >&2"] },
        context(),
      );
      const full = Array.from({ length: 2000 }, (_, index) => `${index + 1}\n`).join("");
      const cut = `…[${full.length - 256} bytes cut]…`;
      const expected = `${full.slice(0, 128)}\n${cut}\n${full.slice(-128, -1)}`;
      expect(outcome).toEqual({ kind: "ok", text: `exit code: 0\nstdout:\n${expected}\nstderr:\n${expected}` });
    });

    describe("environment", () => {
      const secretName = "OPENAI_API_KEY";
      let saved: string | undefined;
      beforeEach(() => {
        saved = process.env[secretName];
        process.env[secretName] = "sk-test-secret";
        process.env.ROUNDTABLE_TEST_VISIBLE = "visible-value";
      });
      afterEach(() => {
        if (saved === undefined) delete process.env[secretName];
        else process.env[secretName] = saved;
        delete process.env.ROUNDTABLE_TEST_VISIBLE;
      });

      it("passes only allowlisted variables: secrets never reach a command", async () => {
        const source = shell({ envAllowlist: ["PATH", "ROUNDTABLE_TEST_*"] });
        const outcome = await source.call("shell_cmd", { command: "env" }, context());
        expect(outcome.text).toContain("ROUNDTABLE_TEST_VISIBLE=visible-value");
        expect(outcome.text).toContain("PATH=");
        expect(outcome.text).not.toContain("sk-test-secret");
        expect(outcome.text).not.toContain(secretName);
      });

      it("passes nothing of the secret with the default allowlist", async () => {
        const outcome = await shell().call("shell_cmd", { command: "env" }, context());
        expect(outcome.kind).toBe("ok");
        expect(outcome.text).not.toContain("sk-test-secret");
        expect(outcome.text).not.toContain("ROUNDTABLE_TEST_VISIBLE");
      });
    });

    describe("abort", () => {
      it("stops a running command when the signal aborts", async () => {
        const controller = new AbortController();
        const running = shell().call(
          "shell_cmd",
          { command: "sh", args: ["-c", `${recordPid("$$", "started")}; sleep 30`] },
          context({ signal: controller.signal }),
        );
        const command = await recorded("started");
        expect(isRecordedAlive(command)).toBe(true);
        controller.abort();
        const outcome = await running;
        expect(outcome.kind).toBe("failed");
        expect(outcome.text).toContain("sh was stopped: the service is stopping");
        await waitUntil("the command is gone", () => !isRecordedAlive(command));
      });

      it("does not start a command when the signal has already aborted", async () => {
        const controller = new AbortController();
        controller.abort();
        const outcome = await shell().call(
          "shell_cmd",
          { command: "touch", args: ["should-not-exist"] },
          context({ signal: controller.signal }),
        );
        expect(outcome.kind).toBe("failed");
        expect(existsSync(path.join(workdir, "should-not-exist"))).toBe(false);
      });
    });
  });

describe.skipIf(host.kind === "marker")("a command in a PID namespace", () => {
  const run = async (isolation: "auto" | "marker", script: string) => {
    const source = new ShellToolSource(shellConfigSchema.parse({ envAllowlist: ["PATH", "HOME", "LANG"] }), {
      isolation,
    });
    const outcome = await source.call("shell_cmd", { command: "sh", args: ["-c", script] }, context());
    expect(outcome.kind).toBe("ok");
    // The marker's value is the call's own.
    return outcome.text.replace(/ROUNDTABLE_TOOL_CALL=\S+/, "ROUNDTABLE_TOOL_CALL=…");
  };

  it("sees what it would see without one: user, open files, environment, directory, umask, stdin", async () => {
    const script = "id -u; id -g; umask; pwd; ls /proc/self/fd; env | sort; wc -c; exit 5";
    const inNamespace = await run("auto", script);
    expect(inNamespace).toBe(await run("marker", script));
    expect(inNamespace).toMatch(/^exit code: 5\n/);
  });

  it("sees only its own processes, with pids that /proc agrees with", async () => {
    const outcome = await run("auto", "echo $$; cut -d' ' -f4 /proc/self/stat; ls /proc | grep -c '^[0-9]'");
    const [shellPid, parentOfCut, processes] = /stdout:\n(\d+)\n(\d+)\n(\d+)\n/.exec(outcome)?.slice(1) ?? [];
    expect(parentOfCut).toBe(shellPid);
    // The init, sh and ls (or grep): a handful, not the host's hundreds.
    expect(Number(processes)).toBeLessThan(6);
  });
});
