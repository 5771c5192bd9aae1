import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellConfigSchema } from "../../src/config/schema.js";
import { ShellToolSource, type ShellToolOptions } from "../../src/tools/shell/shell-tool-source.js";
import type { ToolRunContext } from "../../src/tools/tool-source.js";
import { isAlive, waitUntil } from "./wait-until.js";

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

function shell(config: Record<string, unknown> = {}, options: ShellToolOptions = {}): ShellToolSource {
  return new ShellToolSource(shellConfigSchema.parse({ timeout: "20s", ...config }), { killGraceMs: 500, ...options });
}

function context(overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  return { workdir, signal: new AbortController().signal, timeoutMs: 60_000, ...overrides };
}

describe("shell_cmd", () => {
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
        expect(outcome).toEqual({ kind: "error", text: `cwd ${JSON.stringify(cwd)} is outside the working directory` });
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
        { command: "sh", args: ["-c", "sleep 30 & echo $!; wait"], timeoutSeconds: 0.5 },
        context(),
      );
      expect(outcome.kind).toBe("timeout");
      expect(outcome.text).toMatch(/^sh did not finish within 0\.5s and was stopped\nstdout:\n\d+\nstderr: \(empty\)$/);
      const sleeper = Number(/stdout:\n(\d+)/.exec(outcome.text)?.[1]);
      await waitUntil("the background sleep is gone", () => !isAlive(sleeper));
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
      const outcome = await shell().call("shell_cmd", { command: "sh", args: ["-c", "sleep 30 & echo $!"] }, context());
      expect(outcome.kind).toBe("ok");
      const sleeper = Number(/stdout:\n(\d+)/.exec(outcome.text)?.[1]);
      await waitUntil("the left-behind sleep is gone", () => !isAlive(sleeper));
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
        { command: "sh", args: ["-c", "echo $$ > started; sleep 30"] },
        context({ signal: controller.signal }),
      );
      const marker = path.join(workdir, "started");
      await waitUntil(
        "the command started",
        async () => existsSync(marker) && (await readFile(marker, "utf8")).endsWith("\n"),
      );
      const pid = Number((await readFile(marker, "utf8")).trim());
      controller.abort();
      const outcome = await running;
      expect(outcome.kind).toBe("failed");
      expect(outcome.text).toContain("sh was stopped: the service is stopping");
      await waitUntil("the command is gone", () => !isAlive(pid));
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
