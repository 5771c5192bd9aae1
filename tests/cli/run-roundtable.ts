import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/** The repository root (this file is tests/cli/run-roundtable.ts). */
export const repositoryRoot = path.resolve(import.meta.dirname, "../..");
const binDirectory = path.join(repositoryRoot, "node_modules", ".bin");
const tsx = path.join(binDirectory, "tsx");
const main = path.join(repositoryRoot, "src", "cli", "main.ts");

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A clean environment: Node 24 from node_modules/.bin first on PATH, and nothing of the test
 * process's own keys or tokens, plus `extra`.
 */
export function cliEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${binDirectory}${path.delimiter}${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? "/tmp",
    ...extra,
  };
}

/** Starts the real CLI as a child process. */
export function spawnRoundtable(args: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
  return spawn(tsx, [main, ...args], {
    cwd: options.cwd,
    env: cliEnvironment(options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the real CLI to the end and collects its output. */
export function runRoundtable(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  const child = spawnRoundtable(args, options);
  child.stdin?.end(options.input ?? "");
  return collect(child);
}

/** Waits for a child to exit, with everything it wrote. */
export function collect(child: ChildProcess): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
