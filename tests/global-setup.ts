import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server URL for the contract suites (they create their own databases), or "" when none. */
    postgresUrl: string;
    /** Why there is no PostgreSQL, when there is none. */
    postgresProblem: string;
  }
}

const script = fileURLToPath(new URL("../scripts/postgres-up.sh", import.meta.url));

/**
 * Vitest global setup: a PostgreSQL for the storage contract suites. `ROUNDTABLE_TEST_POSTGRES_URL`
 * names one to use; otherwise a throwaway server is started (scripts/postgres-up.sh) on a free
 * port and stopped at the end (`ROUNDTABLE_TEST_POSTGRES=off` starts none). Without one the
 * PostgreSQL suites are skipped with a warning, or fail when `CI=true`.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.ROUNDTABLE_TEST_POSTGRES_URL;
  if (given) {
    project.provide("postgresUrl", given);
    project.provide("postgresProblem", "");
    return undefined;
  }
  if (process.env.ROUNDTABLE_TEST_POSTGRES === "off") {
    return noPostgres(project, "turned off by ROUNDTABLE_TEST_POSTGRES=off");
  }
  await stopLeftovers();
  const port = await freePort();
  const directory = join(tmpdir(), `roundtable-test-pg-${process.pid}-${port}`);
  try {
    const url = (await run([script, String(port), directory])).trim().split("\n").pop() ?? "";
    if (!url.startsWith("postgresql://")) throw new Error(`postgres-up.sh printed no URL (${url})`);
    project.provide("postgresUrl", url);
    project.provide("postgresProblem", "");
    return async () => {
      await run([script, "--stop", String(port), directory]).catch(() => undefined);
    };
  } catch (error) {
    await run([script, "--stop", String(port), directory]).catch(() => undefined);
    return noPostgres(project, error instanceof Error ? error.message : String(error));
  }
}

const leftoverPattern = /^roundtable-test-pg-(\d+)-(\d+)$/;

/** Servers of earlier runs that were killed before their teardown: stop them. */
async function stopLeftovers(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const match = leftoverPattern.exec(name);
    if (!match || processAlive(Number(match[1]))) continue;
    await run([script, "--stop", match[2] ?? "0", join(tmpdir(), name)]).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** No server: the PostgreSQL suites skip (or fail in CI); say so loudly. */
function noPostgres(project: TestProject, problem: string): undefined {
  project.provide("postgresUrl", "");
  project.provide("postgresProblem", problem);
  const consequence = process.env.CI === "true" ? "they FAIL (CI=true)" : "they are SKIPPED";
  process.stderr.write(
    `\n!!! No PostgreSQL for the storage contract tests: ${consequence}.\n!!! ${problem.trim().replaceAll("\n", "\n!!! ")}\n!!! Set ROUNDTABLE_TEST_POSTGRES_URL or install PostgreSQL (apt-get install postgresql).\n\n`,
  );
  return undefined;
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", args, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}
