import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { type OpenedStore, openStore } from "../../src/storage/open-store.js";
import { waitUntil } from "../tools/wait-until.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

/**
 * A chat's step whose graphile-worker task failed before its claim was written (the database
 * went away under the claim): graphile-worker retries it after its own backoff and unlocks the
 * chat's queue meanwhile, so the chat's next job is fetched first. It must wait its turn.
 */
describePostgres("PostgreSQL work queue: a step graphile-worker retries keeps its chat's order", (serverUrl) => {
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

  it("a job failed by graphile-worker before its claim runs before the chat's later jobs", async () => {
    const store = await openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false });
    opened.push(store);
    const queue = store.createQueue({ logger: quietLogger(), concurrency: 2 });
    for (let index = 0; index < 3; index++)
      await queue.add({ queue: "chat-a", key: `chat-a:${index}`, payload: { index } });
    // What graphile-worker's failure of a task that threw leaves: the job due again after its
    // backoff, one attempt used, the queue unlocked; our row still pending with no attempt.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const moved = await client.query(
        `SELECT id FROM graphile_worker.reschedule_jobs(
           ARRAY(SELECT id FROM graphile_worker.jobs WHERE key = 'chat-a:0'),
           run_at => now() + interval '1500 milliseconds', attempts => 1)`,
      );
      expect(moved.rowCount).toBe(1);
    } finally {
      await client.end();
    }
    const done: number[] = [];
    await queue.start(async (job) => {
      done.push((job.payload as { index: number }).index);
    });
    await waitUntil("every step ran", () => done.length >= 3, 20_000);
    expect(done).toEqual([0, 1, 2]);
    expect(await queue.jobStatus("chat-a:0")).toMatchObject({ state: "done", attempts: 1 });
  }, 30_000);
});
