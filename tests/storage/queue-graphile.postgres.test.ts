import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import pino from "pino";
import { afterEach, beforeEach, expect, it } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { type OpenedStore, openStore, type StoredWorkQueue } from "../../src/storage/open-store.js";
import { waitUntil } from "../tools/wait-until.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

const nodeBinary = realpathSync(process.execPath);
const loader = pathToFileURL(path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/loader.mjs")).href;

interface LogLine {
  level: number;
  msg: string;
}

/** A logger keeping its lines (to check that a bad input is said). */
function recordingLogger(lines: LogLine[]) {
  return pino(
    { level: "debug" },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
}

describePostgres("PostgreSQL work queue on graphile-worker", (serverUrl) => {
  let database: { url: string; drop(): Promise<void> };
  const opened: OpenedStore[] = [];

  beforeEach(async () => {
    database = await createPostgresDatabase(serverUrl());
    await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await database.drop();
  });

  async function open(): Promise<OpenedStore> {
    const store = await openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false });
    opened.push(store);
    return store;
  }

  async function sql<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<Row[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  it("hands each step to graphile-worker: task roundtable_step, queue name = chat key, job key = step key", async () => {
    const store = await open();
    const queue = store.createQueue({ logger: quietLogger() });
    expect(await queue.add({ queue: "telegram::-100:", key: "turn:t1:1", payload: { n: 1 } })).toBe(true);
    expect(await queue.add({ queue: "telegram::-100:", key: "turn:t1:2", payload: { n: 2 } })).toBe(true);
    expect(await queue.add({ queue: "telegram::-100:", key: "turn:t1:1", payload: { n: 3 } })).toBe(false);
    const waiting = await sql<{ key: string; queue_name: string; task_identifier: string; payload: unknown }>(
      `SELECT jobs.key, jobs.queue_name, jobs.task_identifier, private.payload
       FROM graphile_worker.jobs AS jobs JOIN graphile_worker._private_jobs AS private ON private.id = jobs.id
       ORDER BY jobs.id`,
    );
    expect(waiting).toEqual([
      {
        key: "turn:t1:1",
        queue_name: "telegram::-100:",
        task_identifier: "roundtable_step",
        payload: { key: "turn:t1:1" },
      },
      {
        key: "turn:t1:2",
        queue_name: "telegram::-100:",
        task_identifier: "roundtable_step",
        payload: { key: "turn:t1:2" },
      },
    ]);
    const ran: unknown[] = [];
    await queue.start(async (job) => {
      ran.push(job.payload);
    });
    await queue.whenIdle();
    expect(ran).toEqual([{ n: 1 }, { n: 2 }]);
    // graphile-worker deletes what it finished, and its chat queue is free again.
    expect(await sql("SELECT id FROM graphile_worker.jobs")).toEqual([]);
    expect(await sql("SELECT queue_name FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL")).toEqual(
      [],
    );
    expect((await queue.jobStatus("turn:t1:2"))?.state).toBe("done");
  });

  it("a chat's chain of steps wakes no other process: its adds go without NOTIFY and each finish hands the chat on", async () => {
    const length = 10;
    const ran: string[] = [];
    const queues: StoredWorkQueue[] = [];
    const stores = [await open(), await open()];
    for (const [index, store] of stores.entries()) {
      const queue = store.createQueue({ logger: quietLogger(), concurrency: 4 });
      queues.push(queue);
      await queue.start(async (job) => {
        const step = (job.payload as { step: number }).step;
        ran.push(`p${index}:${step}`);
        // As the world's steps do: the chat's next step is added by the running one.
        if (step + 1 < length) await queue.add({ queue: "chat-c", key: `c${step + 1}`, payload: { step: step + 1 } });
      });
    }
    const before = stores.map((store) => store.statementCount());
    await queues[0]?.add({ queue: "chat-c", key: "c0", payload: { step: 0 } });
    await waitUntil("the chain ran", () => ran.length === length, 10_000);
    const spent = stores.map((store, index) => store.statementCount() - (before[index] ?? 0));
    // The process running the chain: per step its add, its claim, its finish (which hands the
    // chat on); the other: one look for work, after the first add's NOTIFY. Every add used to
    // wake a worker in both processes, and each step's end started another look in its process
    // (a liveness sweep or a poll of the other may fall in the window: a few statements more).
    const runner = ran[0]?.startsWith("p0") ? 0 : 1;
    expect(new Set(ran.map((entry) => entry.split(":")[0]))).toEqual(new Set([`p${runner}`]));
    expect(ran.map((entry) => entry.split(":")[1])).toEqual(Array.from({ length }, (_, step) => String(step)));
    expect(spent[runner]).toBeLessThanOrEqual(3 * length + 4);
    expect(spent[1 - runner]).toBeLessThanOrEqual(6);
  });

  it("a killed process's locked job and chat queue are released within seconds (forceUnlockWorkers), not after 4 hours", async () => {
    const store = await open();
    const seed = store.createQueue({ logger: quietLogger(), leaseMs: 60 * 60 * 1000 });
    await seed.add({ queue: "chat-1", key: "step-1", payload: { n: 1 } });
    await seed.add({ queue: "chat-1", key: "step-2", payload: { n: 2 } });
    // As a process killed in the middle of step-1 leaves it: graphile-worker's job and the chat's
    // queue locked by its pool, our row running under that pool's claim; no session holds its lock.
    await sql(
      `UPDATE graphile_worker._private_jobs SET locked_by = 'pool-killed', locked_at = now() - interval '5 seconds', attempts = 1 WHERE key = 'step-1'`,
    );
    await sql(
      `UPDATE graphile_worker._private_job_queues SET locked_by = 'pool-killed', locked_at = now() - interval '5 seconds' WHERE queue_name = 'chat-1'`,
    );
    await sql(
      `UPDATE "Job" SET "state" = 'running', "lockedBy" = 'pool-killed:7', "lockedAt" = now(), "attempts" = 1 WHERE "key" = 'step-1'`,
    );
    const ran: string[] = [];
    const queue = store.createQueue({ logger: quietLogger(), leaseMs: 60 * 60 * 1000 });
    await queue.start(async (job) => {
      ran.push(`${job.key}#${job.attempts}`);
    });
    await waitUntil("the chat goes on", () => ran.length === 2, 10_000);
    expect(ran).toEqual(["step-1#2", "step-2#1"]);
    expect(await queue.jobStatus("step-1")).toMatchObject({ state: "done", attempts: 2 });
  });

  it("the step of a process killed with SIGKILL runs again in another within seconds, and its chat goes on", async () => {
    const store = await open();
    const seed = store.createQueue({ logger: quietLogger() });
    await seed.add({ queue: "chat-k", key: "killed-step", payload: {} });
    await seed.add({ queue: "chat-k", key: "next-step", payload: {} });
    const child = spawn(nodeBinary, ["--import", loader, path.join(import.meta.dirname, "processes/hold-one-job.ts")], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await waitUntil("the child runs the step", () => output.includes("running killed-step"), 30_000);
    } finally {
      child.kill("SIGKILL");
    }
    const killedAt = Date.now();
    const ran: string[] = [];
    const queue = store.createQueue({ logger: quietLogger(), leaseMs: 60 * 60 * 1000 });
    await queue.start(async (job) => {
      ran.push(`${job.key}#${job.attempts}`);
    });
    await waitUntil("the chat goes on", () => ran.length === 2, 15_000);
    // A figure, not a bound: a sweep every 2 s, a job judged once locked for 1 s.
    process.stderr.write(`queue-graphile: killed process's step ran again after ${Date.now() - killedAt} ms\n`);
    expect(ran).toEqual(["killed-step#2", "next-step#1"]);
  });

  it("a process whose liveness connection broke takes its lock again, and then keeps its running job", async () => {
    const lines: LogLine[] = [];
    const first = await open();
    const holder = first.createQueue({ logger: recordingLogger(lines), leaseMs: 60 * 60 * 1000 });
    let finish: () => void = () => undefined;
    const started: string[] = [];
    await holder.start(
      (job) =>
        new Promise<void>((resolve) => {
          started.push(job.key);
          finish = resolve;
        }),
    );
    await holder.add({ queue: "chat-3", key: "long-step", payload: {} });
    await waitUntil("the first worker runs the job", () => started.length === 1);
    await sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'roundtable-liveness' AND datname = current_database()",
    );
    await waitUntil(
      "the lock is held again",
      () => lines.some((line) => /holding the liveness lock again/.test(line.msg)),
      10_000,
    );
    expect(lines.some((line) => line.level >= 50 && /liveness lock broke/.test(line.msg))).toBe(true);
    const second = await open();
    const other = second.createQueue({ logger: quietLogger(), leaseMs: 60 * 60 * 1000 });
    const stolen: string[] = [];
    await other.start(async (job) => {
      stolen.push(job.key);
    });
    // Two sweeps of the other process pass; the job stays with its living worker.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(stolen).toEqual([]);
    expect((await other.jobStatus("long-step"))?.state).toBe("running");
    finish();
    await waitUntil("the first worker finishes", async () => (await holder.jobStatus("long-step"))?.state === "done");
  });

  it("a graphile-worker job for an unknown or missing key changes nothing and is said in the log", async () => {
    const lines: LogLine[] = [];
    const store = await open();
    const queue = store.createQueue({ logger: recordingLogger(lines) });
    const ran: string[] = [];
    await queue.start(async (job) => {
      ran.push(job.key);
    });
    await sql(`SELECT graphile_worker.add_job('roundtable_step', '{"nokey": 1}'::json, queue_name => 'chat-x')`);
    await sql(
      `SELECT graphile_worker.add_job('roundtable_step', '{"key": "never-added"}'::json, queue_name => 'chat-x')`,
    );
    await waitUntil(
      "graphile-worker has nothing left",
      async () => (await sql("SELECT id FROM graphile_worker.jobs")).length === 0,
    );
    expect(ran).toEqual([]);
    expect(lines.some((line) => line.level >= 50 && /without a step key/.test(line.msg))).toBe(true);
    expect(lines.some((line) => line.level >= 40 && /never added/.test(line.msg))).toBe(true);
    // The chat's queue is not left locked: a real step of that chat still runs.
    await queue.add({ queue: "chat-x", key: "real", payload: {} });
    await waitUntil("the real step runs", () => ran.includes("real"));
  });

  it("pending rows written before the move to graphile-worker get a graphile-worker job at start", async () => {
    const store = await open();
    await sql(
      `INSERT INTO "Job" ("key", "queue", "payload", "state", "runAt", "attempts", "createdAt") VALUES ('old-1', 'chat-9', '{"n":1}', 'pending', now(), 0, now()), ('old-2', 'chat-9', '{"n":2}', 'pending', now(), 0, now())`,
    );
    const ran: string[] = [];
    const queue = store.createQueue({ logger: quietLogger() });
    await queue.start(async (job) => {
      ran.push(job.key);
    });
    await queue.whenIdle();
    expect(ran).toEqual(["old-1", "old-2"]);
  });
});
