import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";
import { type CliRun, cliEnvironment, collect, repositoryRoot } from "./run-roundtable.js";

/** What `npm start`, the `roundtable` binary and the Docker image run (built by tests/build-bundle.ts). */
export const bundleMain = path.join(repositoryRoot, "dist", "bundle", "main.js");
const node = path.join(repositoryRoot, "node_modules", ".bin", "node");

/** Fails the calling test when the global setup could not build the bundle. */
export function requireBundle(): void {
  const problem = inject("bundleProblem");
  if (problem) throw new Error(problem);
}

/** Starts the bundled CLI with the project's own Node, as `npm start` does. */
export function spawnBundle(args: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
  requireBundle();
  return spawn(node, [bundleMain, ...args], {
    cwd: options.cwd,
    env: cliEnvironment(options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the bundled CLI to the end with `input` on stdin. */
export function runBundle(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  const child = spawnBundle(args, options);
  child.stdin?.end(options.input ?? "");
  return collect(child);
}

/** The port `start` logs in its "HTTP server listening" line (JSON logs on a pipe). */
export function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stderr?.on("data", (chunk: Buffer | string) => {
      buffered += chunk.toString();
      for (const line of buffered.split("\n")) {
        const match = /"msg":"HTTP server listening"/.test(line) ? /"port":(\d+)/.exec(line) : null;
        if (match) resolve(Number(match[1]));
      }
    });
    child.on("exit", () => reject(new Error(`start exited early: ${buffered}`)));
  });
}
