import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { type OpenedStore, openStore } from "../../src/storage/open-store.js";
import { waitUntil } from "../tools/wait-until.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

describePostgres("PostgreSQL work queue: dead workers", (serverUrl) => {
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

  async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  }

  it("a job left running by a worker that holds no liveness lock is taken back at start, not after the lease", async () => {
    const store = await open();
    const seed = store.createQueue({ leaseMs: 60 * 60 * 1000 });
    await seed.add({ queue: "chat-1", key: "step-1", payload: { n: 1 } });
    // As a killed process leaves it: running, claimed by a worker whose session is gone, and
    // graphile-worker's job and the chat's queue locked by that worker (for 4 hours, left alone).
    await sql(
      `UPDATE "Job" SET "state" = 'running', "lockedBy" = 'dead-worker:1', "lockedAt" = now() WHERE "key" = 'step-1'`,
    );
    await sql(
      `UPDATE graphile_worker._private_jobs SET locked_by = 'dead-worker', locked_at = now() - interval '2 seconds' WHERE key = 'step-1'`,
    );
    await sql(
      `UPDATE graphile_worker._private_job_queues SET locked_by = 'dead-worker', locked_at = now() - interval '2 seconds' WHERE queue_name = 'chat-1'`,
    );
    const ran: string[] = [];
    const queue = store.createQueue({ leaseMs: 60 * 60 * 1000 });
    await queue.start(async (job) => {
      ran.push(job.key);
    });
    await waitUntil("the dead worker's job runs again", () => ran.includes("step-1"), 10_000);
    // The handler has returned; the step's finish is recorded a moment later.
    await waitUntil("its row is done", async () => (await queue.jobStatus("step-1"))?.state === "done");
    expect((await queue.jobStatus("step-1"))?.state).toBe("done");
  });

  it("a living worker's running job is left alone by another worker", async () => {
    const first = await open();
    const holder = first.createQueue({ leaseMs: 60 * 60 * 1000 });
    let finish: () => void = () => undefined;
    const started: string[] = [];
    await holder.start(
      (job) =>
        new Promise<void>((resolve) => {
          started.push(job.key);
          finish = resolve;
        }),
    );
    await holder.add({ queue: "chat-2", key: "long-step", payload: {} });
    await waitUntil("the first worker runs the job", () => started.length === 1);
    const second = await open();
    const other = second.createQueue({ leaseMs: 60 * 60 * 1000 });
    const stolen: string[] = [];
    await other.start(async (job) => {
      stolen.push(job.key);
    });
    // Two sweeps of the other worker (every 2 s) pass; the job stays with its living worker.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(stolen).toEqual([]);
    expect((await other.jobStatus("long-step"))?.state).toBe("running");
    finish();
    await waitUntil("the first worker finishes", async () => (await holder.jobStatus("long-step"))?.state === "done");
  });
});
