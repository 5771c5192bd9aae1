import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, runRoundtable, spawnRoundtable } from "./run-roundtable.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-cli-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("roundtable chat", () => {
  it("passes --world through: an unknown world is refused with exit 2", async () => {
    const run = await runRoundtable(["chat", "--world", "nowhere", "--as", "ana"], {
      cwd: directory,
      env: { OPENAI_API_KEY: "sk", DATABASE_URL: `file:${path.join(directory, "chat.db")}` },
      input: "hello\n",
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('no world named "nowhere" (worlds: main)');
  });
});

describe("roundtable migrate", () => {
  it("applies the migrations once, then has nothing to do", async () => {
    const env = { DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}` };
    const first = await runRoundtable(["migrate"], { cwd: directory, env });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/: applied \d+ migrations?\n {2}0001_init\n/);
    const second = await runRoundtable(["migrate"], { cwd: directory, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/: up to date, nothing to apply\n$/);
  });

  it("a DATABASE_URL it cannot use exits 1 with the reason", async () => {
    const run = await runRoundtable(["migrate"], { cwd: directory, env: { DATABASE_URL: "mysql://nope" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DATABASE_URL must start with file: (SQLite) or postgres://");
  });
});

// Runs the lead's startService (src/app/start-service.ts) and the storage's migrateDatabase.
describe("roundtable start", () => {
  it("serves /healthz, prints the web console's login address (the token kept in ./data), and exits 0 on SIGTERM", async () => {
    const child = spawnRoundtable(["start"], {
      cwd: directory,
      env: {
        PORT: "0",
        LOG_LEVEL: "info",
        DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      },
    });
    const finished = collect(child);
    const port = await new Promise<number>((resolve, reject) => {
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
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    // `roundtable web-login` beside it prints the same address (the token from ./data/web-console-token).
    const token = (await readFile(path.join(directory, "data", "web-console-token"), "utf8")).trim();
    const again = await runRoundtable(["web-login"], { cwd: directory, env: { PORT: String(port) } });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`web console: open http://localhost:${port}/login#token=${token}\n`);
    child.kill("SIGTERM");
    const run = await finished;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`web console: open http://localhost:${port}/login#token=${token}\n`);
    expect(run.stderr).not.toContain(token);
    expect(run.stderr).toContain(
      `"msg":"web console: open http://localhost:${port}/login and log in with the token from`,
    );
    expect(run.stderr).toContain('"msg":"signal received: stopping"');
    // SQLite: the embedded queue, and the one-process-per-file rule said at start.
    expect(run.stderr).toContain("run one `roundtable start` per database file");
  });

  it("a bad config stops start with the message and exit 1", async () => {
    const run = await runRoundtable(["start"], {
      cwd: directory,
      env: { ROUNDTABLE_CONFIG: "missing.yaml", PORT: "0" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("missing.yaml: config file not found (from ROUNDTABLE_CONFIG)\n");
  });

  it("a bad PORT exits 1 naming it", async () => {
    const run = await runRoundtable(["start"], {
      cwd: directory,
      env: { PORT: "eighty", OPENAI_API_KEY: "sk" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('PORT: expected a port number from 0 to 65535, got "eighty"\n');
  });
});
