import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listeningPort, runBundle, spawnBundle } from "./run-bundle.js";
import { collect } from "./run-roundtable.js";

// One process per SQLite file (docs/architecture.md): `start` and `chat` hold <file>.lock for
// their lifetime; a second one exits 1 with one line; read-only commands run beside them.

let directory: string;
let databaseFile: string;
const children: { kill(signal: NodeJS.Signals): boolean; exitCode: number | null }[] = [];

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-lock-"));
  databaseFile = path.join(directory, "data", "roundtable.db");
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await rm(directory, { recursive: true, force: true });
});

const environment = (): Record<string, string> => ({
  PORT: "0",
  DATABASE_URL: `file:${databaseFile}`,
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
});

async function startService() {
  const child = spawnBundle(["start"], { cwd: directory, env: environment() });
  children.push(child);
  const finished = collect(child);
  const port = await listeningPort(child);
  return { child, finished, port };
}

async function startAndStop() {
  const service = await startService();
  const health = await fetch(`http://127.0.0.1:${service.port}/healthz`);
  expect(health.status).toBe(200);
  service.child.kill("SIGTERM");
  const run = await service.finished;
  expect(run.code).toBe(0);
  return run;
}

const refusal = (command: string, pid: number) =>
  `roundtable ${command}: ${databaseFile} is in use by \`roundtable start\` (pid ${pid}); SQLite allows one Roundtable process per database file: talk to the running service in its web console, or give this command its own DATABASE_URL (DATABASE_URL=file:./data/other.db), or use PostgreSQL\n`;

describe("one process per SQLite file", () => {
  it("a second start, a chat and a migrate on a busy file exit 1 with one line; usage runs beside; the first keeps working", async () => {
    const first = await startService();
    const pid = first.child.pid ?? 0;
    const lock = JSON.parse(readFileSync(`${databaseFile}.lock`, "utf8")) as { pid: number; command: string };
    expect(lock).toMatchObject({ pid, command: "roundtable start" });

    const [second, chat, migrate, usage] = await Promise.all([
      runBundle(["start"], { cwd: directory, env: environment() }),
      runBundle(["chat", "--as", "ana"], { cwd: directory, env: environment(), input: "hello\n" }),
      runBundle(["migrate"], { cwd: directory, env: environment() }),
      runBundle(["usage"], { cwd: directory, env: environment() }),
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(refusal("start", pid));
    expect(chat.code).toBe(1);
    expect(chat.stderr).toBe(refusal("chat", pid));
    expect(chat.stdout).toBe("");
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toBe(refusal("migrate", pid));
    expect(usage.code, usage.stderr).toBe(0);

    const health = await fetch(`http://127.0.0.1:${first.port}/healthz`);
    expect(health.status).toBe(200);
    expect(readFileSync(`${databaseFile}.lock`, "utf8")).toContain(`"pid":${pid}`);
    first.child.kill("SIGTERM");
    expect((await first.finished).code).toBe(0);
    // Released on exit: the next process takes the file without a word about a stale lock.
    expect(existsSync(`${databaseFile}.lock`)).toBe(false);
    const after = await runBundle(["migrate"], { cwd: directory, env: environment() });
    expect(after.code, after.stderr).toBe(0);
  });

  it("a stale lock (its process gone) is taken over with a log line", async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.on("exit", resolve));
    await mkdir(path.dirname(databaseFile), { recursive: true });
    await writeFile(
      `${databaseFile}.lock`,
      JSON.stringify({
        pid: gone.pid,
        host: hostname(),
        command: "roundtable chat",
        token: "old",
        since: "2026-01-01T00:00:00.000Z",
      }),
    );
    const run = await startAndStop();
    const takeovers = run.stderr.split("\n").filter((line) => line.includes("taking over a stale database lock"));
    expect(takeovers).toHaveLength(1);
    expect(JSON.parse(takeovers[0] ?? "{}")).toMatchObject({ pid: gone.pid, command: "roundtable chat" });
  });

  it("a lock whose pid now belongs to another process (started later) is stale too", async () => {
    await mkdir(path.dirname(databaseFile), { recursive: true });
    // This test's own process is alive, but it is not the process that wrote the lock.
    await writeFile(
      `${databaseFile}.lock`,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        command: "roundtable start",
        token: "old",
        since: "2026-01-01T00:00:00.000Z",
        incarnation: "another-boot:1",
      }),
    );
    const run = await startAndStop();
    expect(run.stderr).toContain("another process has its pid now");
  });
});
