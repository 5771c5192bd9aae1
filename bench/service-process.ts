import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

/** The repository root (this file is bench/service-process.ts). */
export const repositoryRoot = path.resolve(import.meta.dirname, "..");

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** What the process wrote to stderr so far (the bench runs it at LOG_LEVEL=warn). */
  stderr(): string;
  /** The value of a counter or gauge on `/metrics` (summed over its series), or undefined. */
  metric(name: string): Promise<number | undefined>;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts the real service the way `npm start` does (the `start` script of package.json run by
 * `sh`, with node_modules/.bin first on PATH), so that what is measured is what users run.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const port = await freePort();
  const binDirectory = path.join(repositoryRoot, "node_modules", ".bin");
  const child = spawn("sh", ["-c", manifest.scripts.start], {
    cwd: repositoryRoot,
    env: {
      PATH: `${binDirectory}${path.delimiter}${process.env.PATH ?? ""}`,
      HOME: process.env.HOME ?? "/tmp",
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.pid === undefined) throw new Error("could not start the service");
  return {
    child,
    pid: child.pid,
    port,
    stderr: () => stderr,
    async metric(name) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`);
        const text = await response.text();
        let total: number | undefined;
        for (const line of text.split("\n")) {
          if (!line.startsWith(name) || !/[\s{]/.test(line.charAt(name.length))) continue;
          total = (total ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
        }
        return total;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
