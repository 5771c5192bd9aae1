import { type ChildProcess, spawn } from "node:child_process";
import { CappedOutput } from "./capped-output.js";
import type { ProcessOutput } from "./format-shell-result.js";
import { namespaceLaunch, parseInitReport, type ProcessIsolation } from "./process-namespace.js";
import { ProcessTree } from "./process-tree.js";

export interface RunProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Cap of stdout and of stderr, each. */
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Time between SIGTERM and SIGKILL when stopping, and the wait for pipes after exit. */
  killGraceMs: number;
  /** Where the call runs: a PID namespace of its own, or with the service (found by its marker). */
  isolation: ProcessIsolation;
  /** The call's sandbox script (`mount-sandbox.ts`), run first inside the namespace when the isolation has a sandbox. */
  sandboxSetup?: string;
}

/** How a run ended: on its own, by the timeout, or because the signal aborted it. */
export type ProcessEnding = "exited" | "timeout" | "aborted";

export interface ProcessRun extends ProcessOutput {
  ending: ProcessEnding;
}

export type ProcessStart = { started: true; run: ProcessRun } | { started: false; error: NodeJS.ErrnoException };

/**
 * Run one program without a shell, in its own session, stdin closed. The timeout and the
 * abort signal end its whole {@link ProcessTree} (SIGTERM, then SIGKILL after a grace); when the
 * program exits, whatever it left running is ended too (also what called `setsid`, forked twice
 * or changed its group), so no call leaves processes behind. With a `pid-namespace` isolation
 * the program runs under the namespace's init (`process-namespace.ts`), which reports how it
 * ended; the tree is ended the same way, and the kernel then kills whatever the tree missed.
 * Never rejects: a program that cannot start is `{ started: false, error }`.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessStart> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    const tree = new ProcessTree();
    const environment = tree.environment(options.env);
    const isolated = options.isolation.kind === "pid-namespace";
    const launch =
      options.isolation.kind === "pid-namespace"
        ? namespaceLaunch(
            options.isolation,
            options.command,
            options.args,
            environment,
            tree.environment({}),
            options.sandboxSetup,
          )
        : { command: options.command, args: [...options.args], env: environment };
    try {
      child = spawn(launch.command, launch.args, {
        cwd: options.cwd,
        env: launch.env,
        shell: false,
        detached: true,
        // fd 3: the namespace's init reports on it.
        stdio: isolated ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      resolve({ started: false, error: error as NodeJS.ErrnoException });
      return;
    }
    if (child.pid !== undefined) tree.started(child.pid);
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.append(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.append(chunk));
    const initReport: Buffer[] = [];
    child.stdio[3]?.on("data", (chunk: Buffer) => initReport.push(chunk));
    let ending: ProcessEnding = "exited";
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (delayMs: number, action: () => void) => timers.push(setTimeout(action, delayMs));

    const stop = (why: Exclude<ProcessEnding, "exited">) => {
      if (ending !== "exited" || settled) return;
      ending = why;
      tree.signal("SIGTERM");
      later(options.killGraceMs, () => tree.end());
    };
    const onAbort = () => stop("aborted");
    const finish = (result: ProcessStart) => {
      if (settled) return;
      settled = true;
      tree.end();
      for (const timer of timers) clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      resolve(result);
    };

    child.once("error", (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) finish({ started: false, error });
    });
    child.once("exit", () => {
      tree.end();
      // A process that escaped the group may still hold the pipes: stop waiting for them.
      later(options.killGraceMs, () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdio[3]?.destroy();
      });
    });
    child.once("close", (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (!isolated) {
        finish({ started: true, run: { ending, exitCode, signal, stdout: stdout.text(), stderr: stderr.text() } });
        return;
      }
      const report = parseInitReport(Buffer.concat(initReport).toString("utf8"));
      if (report.startError) {
        finish({ started: false, error: report.startError });
      } else if (!report.started && ending === "exited") {
        // unshare itself failed (say, no namespaces left): what it said is on stderr.
        const said = stderr.text().trim().split("\n")[0] || `exit code ${exitCode ?? signal}`;
        finish({ started: false, error: new Error(`its PID namespace could not be made (${said})`) });
      } else {
        // The init's report is the command's own ending; without one (the init was killed), unshare's.
        const ended = report.ending ?? { exitCode, signal };
        finish({ started: true, run: { ending, ...ended, stdout: stdout.text(), stderr: stderr.text() } });
      }
    });
    later(options.timeoutMs, () => stop("timeout"));
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
  });
}
