import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Node itself with tsx's loader (not the tsx CLI, which runs a second process a SIGKILL would not reach).
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/autonomous/schedule-child.ts");

/** A schedule-child process, driven line by line. */
export interface ScheduleProcess {
  /** Send a command and wait for the first line matching `answer`. */
  send(command: string, answer: RegExp): Promise<string>;
  /** Wait for a line matching `pattern` (seen already, or to come). */
  waitFor(pattern: RegExp): Promise<string>;
  kill(): Promise<void>;
  exited: Promise<number | null>;
  stderr(): string;
}

export function startScheduleProcess(phase: "answer" | "hang", databaseUrl: string, start: string): ScheduleProcess {
  const process_: ChildProcess = spawn(process.execPath, ["--import", loader, child, phase, databaseUrl, start], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; from: number; resolve: (line: string) => void }[] = [];
  let buffer = "";
  let stderr = "";
  process_.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  process_.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let index = buffer.indexOf("\n"); index >= 0; index = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
    }
    for (const waiter of [...waiters]) {
      const line = lines.slice(waiter.from).find((each) => waiter.pattern.test(each));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => process_.on("exit", (code) => resolve(code)));
  const waitFrom = (pattern: RegExp, from: number) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.slice(from).find((line) => pattern.test(line));
      if (seen !== undefined) return resolve(seen);
      waiters.push({ pattern, from, resolve });
      void exited.then((code) => reject(new Error(`child exited (${code}) before ${pattern}: ${stderr}`)));
    });
  return {
    send(command, answer) {
      const from = lines.length;
      process_.stdin?.write(`${command}\n`);
      return waitFrom(answer, from);
    },
    waitFor: (pattern) => waitFrom(pattern, 0),
    async kill() {
      process_.kill("SIGKILL");
      await exited;
    },
    exited,
    stderr: () => stderr,
  };
}
