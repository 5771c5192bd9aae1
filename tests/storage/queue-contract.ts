import { afterEach, describe, expect, it } from "vitest";
import type { OpenedStore, QueueOptions, StoredWorkQueue } from "../../src/storage/open-store.js";
import type { ClaimedJob, JobHandler } from "../../src/world/work-queue.js";
import { quietLogger } from "./test-databases.js";

/** A fresh, migrated database; `open` may be called again for a second "process" on it. */
export interface QueueDatabase {
  provider: "sqlite" | "postgresql";
  /** Statements a job of a chain may cost (default 4). */
  chainStatementsPerJob?: number;
  open(): Promise<OpenedStore>;
  remove(): Promise<void>;
}

/**
 * The WorkQueue contract over the Job table, run against every database. Each test gets a
 * database of its own (whenIdle looks at the whole table).
 */
export function queueContract(name: string, createDatabase: () => Promise<QueueDatabase>): void {
  describe(`WorkQueue contract: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function database(): Promise<QueueDatabase> {
      const created = await createDatabase();
      cleanups.push(() => created.remove());
      return created;
    }

    async function opened(db: QueueDatabase): Promise<OpenedStore> {
      const store = await db.open();
      cleanups.push(() => store.close());
      return store;
    }

    async function queueOn(db: QueueDatabase, options: QueueOptions = {}): Promise<StoredWorkQueue> {
      return (await opened(db)).createQueue({ logger: quietLogger(), ...options });
    }

    it("runs the jobs of each queue one at a time in insertion order, 50 queues fed concurrently", async () => {
      const queue = await queueOn(await database(), { concurrency: 4 });
      const seen = new Map<string, number[]>();
      const active = new Map<string, number>();
      let running = 0;
      let mostRunning = 0;
      let overlaps = 0;
      await queue.start(async (job) => {
        const { index } = job.payload as { index: number };
        running++;
        mostRunning = Math.max(mostRunning, running);
        if ((active.get(job.queue) ?? 0) > 0) overlaps++;
        active.set(job.queue, (active.get(job.queue) ?? 0) + 1);
        await new Promise((resolve) => setImmediate(resolve));
        seen.set(job.queue, [...(seen.get(job.queue) ?? []), index]);
        active.set(job.queue, (active.get(job.queue) ?? 1) - 1);
        running--;
      });
      const queues = Array.from({ length: 50 }, (_, index) => `chat-${index}`);
      const perQueue = 6;
      await Promise.all(
        queues.map(async (name) => {
          for (let index = 0; index < perQueue; index++) {
            expect(await queue.add({ queue: name, key: `${name}:${index}`, payload: { index } })).toBe(true);
          }
        }),
      );
      await queue.whenIdle();
      for (const name of queues) expect(seen.get(name)).toEqual(Array.from({ length: perQueue }, (_, index) => index));
      expect(overlaps).toBe(0);
      expect(mostRunning).toBeLessThanOrEqual(4);
    });

    it("runs the lowest priority of a queue's due jobs first, then in insertion order", async () => {
      const queue = await queueOn(await database());
      const ran: string[] = [];
      const gate = deferred();
      const started = deferred();
      await queue.start(async (job) => {
        ran.push(job.key);
        if (job.key === "route-1") {
          started.resolve();
          await gate.promise;
        }
      });
      await queue.add({ queue: "q", key: "route-1", payload: {}, priority: 1 });
      await started.promise;
      // Added while route-1 runs: the two steps overtake route-2, which was added before them.
      await queue.add({ queue: "q", key: "route-2", payload: {}, priority: 1 });
      await queue.add({ queue: "q", key: "step-1", payload: {} });
      await queue.add({ queue: "q", key: "deliver-1", payload: {}, priority: 0 });
      gate.resolve();
      await queue.whenIdle();
      expect(ran).toEqual(["route-1", "step-1", "deliver-1", "route-2"]);
    });

    it("keeps the priorities of a dead process's queue: its taken-back job's followers still go before later ones", async () => {
      const db = await database();
      const first = await queueOn(db);
      const stuck = deferred();
      const started = deferred();
      await first.start(async () => {
        started.resolve();
        await stuck.promise; // the "process" dies here
      });
      await first.add({ queue: "q", key: "route-1", payload: {}, priority: 1 });
      await started.promise;
      await first.add({ queue: "q", key: "route-2", payload: {}, priority: 1 });
      await first.add({ queue: "q", key: "step-1", payload: {} });
      const afterCrash = new Date(Date.now() + 10 * 60 * 1_000);
      const second = await queueOn(db, db.provider === "postgresql" ? { clock: () => afterCrash } : {});
      const ran: string[] = [];
      await second.start(async (job) => {
        ran.push(job.key);
      });
      await second.whenIdle();
      expect(ran).toEqual(["step-1", "route-1", "route-2"]);
      stuck.resolve();
      await first.stop();
    });

    it("hands a finished job's slot to the next job of its queue: a chain costs 4 statements a job", async () => {
      const db = await database();
      const store = await opened(db);
      const queue = store.createQueue({ logger: quietLogger(), concurrency: 4 });
      const order: number[] = [];
      const length = 10;
      await queue.start(async (job) => {
        const { index } = job.payload as { index: number };
        order.push(index);
        // Each step queues the next one in its own queue while it runs, as the world's steps do.
        if (index + 1 < length)
          await queue.add({ queue: "chain", key: `chain:${index + 1}`, payload: { index: index + 1 } });
      });
      await queue.whenIdle();
      const before = store.statementCount();
      await queue.add({ queue: "chain", key: "chain:0", payload: { index: 0 } });
      await queue.whenIdle();
      expect(order).toEqual(Array.from({ length }, (_, index) => index));
      // Per job: insert, claim (the first by a scan), complete; the last one's look finds nothing.
      // With a scan after every add and every finish it was 5 a job.
      const perJob = (store.statementCount() - before) / length;
      expect(perJob).toBeLessThanOrEqual(db.chainStatementsPerJob ?? 4);
    });

    it("runs different queues at the same time", async () => {
      const queue = await queueOn(await database(), { concurrency: 2 });
      const started = { a: deferred(), b: deferred() };
      await queue.start(async (job) => {
        const mine = job.queue === "a" ? started.a : started.b;
        const other = job.queue === "a" ? started.b : started.a;
        mine.resolve();
        await other.promise; // only finishes if the other queue's job runs meanwhile
      });
      await queue.add({ queue: "a", key: "a1", payload: {} });
      await queue.add({ queue: "b", key: "b1", payload: {} });
      await queue.whenIdle();
      expect((await queue.jobStatus("a1"))?.state).toBe("done");
      expect((await queue.jobStatus("b1"))?.state).toBe("done");
    });

    it("never runs more jobs at once than its concurrency", async () => {
      const queue = await queueOn(await database(), { concurrency: 2 });
      const release = deferred();
      let running = 0;
      let mostRunning = 0;
      const twoRunning = deferred();
      await queue.start(async () => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        if (running === 2) twoRunning.resolve();
        await release.promise;
        running--;
      });
      for (let index = 0; index < 6; index++) await queue.add({ queue: `q${index}`, key: `k${index}`, payload: {} });
      await twoRunning.promise;
      // Every other queue is due and free; after a full look for work a third job still waits.
      await queue.wake();
      expect(running).toBe(2);
      release.resolve();
      await queue.whenIdle();
      expect(mostRunning).toBe(2);
    });

    it("refuses a key it already has, before and after the job ran", async () => {
      const queue = await queueOn(await database());
      const runs: unknown[] = [];
      expect(await queue.add({ queue: "q", key: "step-1", payload: { n: 1 } })).toBe(true);
      expect(await queue.add({ queue: "q", key: "step-1", payload: { n: 2 } })).toBe(false);
      expect(await queue.add({ queue: "other", key: "step-1", payload: { n: 3 } })).toBe(false);
      await queue.start(async (job) => {
        runs.push(job.payload);
      });
      await queue.whenIdle();
      expect(await queue.add({ queue: "q", key: "step-1", payload: { n: 4 } })).toBe(false);
      await queue.whenIdle();
      expect(runs).toEqual([{ n: 1 }]);
      expect(await queue.jobStatus("step-1")).toMatchObject({ state: "done", attempts: 1, queue: "q" });
    });

    it("hands the handler the payload, key, queue and attempt", async () => {
      const queue = await queueOn(await database());
      const jobs: ClaimedJob[] = [];
      await queue.start(async (job) => {
        jobs.push(job);
      });
      const payload = { kind: "turn-step", turnId: "t1", step: 2, nested: { list: [1, "x", null], flag: true } };
      await queue.add({ queue: "telegram::-100:", key: "turn:t1:2", payload });
      await queue.whenIdle();
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ queue: "telegram::-100:", key: "turn:t1:2", payload, attempts: 1 });
      expect(jobs[0]?.runAt).toBeInstanceOf(Date);
    });

    it("keeps a job with a future runAt until it is due, without blocking its queue", async () => {
      let now = new Date("2030-01-01T00:00:00.000Z");
      const queue = await queueOn(await database(), { clock: () => now });
      const ran: string[] = [];
      await queue.start(async (job) => {
        ran.push(job.key);
      });
      await queue.add({ queue: "q", key: "expire", payload: {}, runAt: new Date("2030-01-01T00:30:00.000Z") });
      await queue.add({ queue: "q", key: "later-but-due", payload: {} });
      await queue.whenIdle();
      expect(ran).toEqual(["later-but-due"]);
      expect((await queue.jobStatus("expire"))?.state).toBe("pending");

      now = new Date("2030-01-01T00:29:59.999Z");
      await queue.wake();
      await queue.whenIdle();
      expect(ran).toEqual(["later-but-due"]);

      now = new Date("2030-01-01T00:30:00.000Z");
      await queue.wake();
      await queue.whenIdle();
      expect(ran).toEqual(["later-but-due", "expire"]);
    });

    it("wakes by itself when a delayed job comes due", async () => {
      const queue = await queueOn(await database());
      const ran = deferred();
      await queue.start(async () => ran.resolve());
      await queue.add({ queue: "q", key: "soon", payload: {}, runAt: new Date(Date.now() + 50) });
      await ran.promise; // no add, no wake: only the timer can start it
      await queue.whenIdle();
      expect((await queue.jobStatus("soon"))?.state).toBe("done");
    });

    it("runs a job that threw again, counting attempts, until it succeeds", async () => {
      const queue = await queueOn(await database(), { retryDelayMs: () => 0 });
      const attempts: number[] = [];
      await queue.start(async (job) => {
        attempts.push(job.attempts);
        if (job.attempts < 3) throw new Error(`flaky ${job.attempts}`);
      });
      await queue.add({ queue: "q", key: "flaky", payload: {} });
      await waitFor(async () => (await queue.jobStatus("flaky"))?.state === "done");
      expect(attempts).toEqual([1, 2, 3]);
      expect(await queue.jobStatus("flaky")).toMatchObject({ attempts: 3, lastError: "flaky 2" });
    });

    it("keeps a failed job's place: the rest of its queue waits for its retry, other queues go on", async () => {
      let now = new Date("2030-01-01T00:00:00.000Z");
      const queue = await queueOn(await database(), { clock: () => now, retryDelayMs: (attempt) => attempt * 60_000 });
      const ran: string[] = [];
      await queue.start(async (job) => {
        ran.push(`${job.key}#${job.attempts}`);
        if (job.key === "a" && job.attempts === 1) throw new Error("not yet");
      });
      await queue.add({ queue: "q", key: "a", payload: {} });
      await queue.add({ queue: "q", key: "b", payload: {}, priority: 1 });
      await queue.whenIdle();
      await queue.add({ queue: "q", key: "c", payload: {} });
      await queue.add({ queue: "other", key: "o", payload: {} });
      await queue.whenIdle();
      expect(ran).toEqual(["a#1", "o#1"]);
      const status = await queue.jobStatus("a");
      expect(status).toMatchObject({ state: "pending", attempts: 1, lastError: "not yet" });
      expect(status?.runAt).toEqual(new Date("2030-01-01T00:01:00.000Z"));
      expect(await queue.jobStatus("b")).toMatchObject({ state: "pending", attempts: 0 });
      now = new Date("2030-01-01T00:01:00.000Z");
      await queue.wake();
      await queue.whenIdle();
      // a first, then by priority and insertion order, as if a had not failed.
      expect(ran).toEqual(["a#1", "o#1", "a#2", "c#1", "b#1"]);
    });

    it("marks a job failed after its last attempt and moves on to the next in its queue", async () => {
      const queue = await queueOn(await database(), { maxAttempts: 3, retryDelayMs: () => 0 });
      const ran: string[] = [];
      await queue.start(async (job) => {
        ran.push(`${job.key}#${job.attempts}`);
        if (job.key === "bad") throw new Error("always broken");
      });
      await queue.add({ queue: "q", key: "bad", payload: {} });
      await queue.add({ queue: "q", key: "next", payload: {} });
      await waitFor(async () => (await queue.jobStatus("next"))?.state === "done");
      await queue.whenIdle();
      expect(ran.filter((entry) => entry.startsWith("bad"))).toEqual(["bad#1", "bad#2", "bad#3"]);
      expect(await queue.jobStatus("bad")).toMatchObject({ state: "failed", attempts: 3, lastError: "always broken" });
      expect(await queue.add({ queue: "q", key: "bad", payload: {} })).toBe(false);
    });

    it("takes back a job left running by a process that died", async () => {
      const db = await database();
      const first = await queueOn(db);
      const stuck = deferred();
      const firstStarted = deferred();
      await first.start(async () => {
        firstStarted.resolve();
        await stuck.promise; // the "process" dies here: this never finishes on its own
      });
      await first.add({ queue: "q", key: "orphan", payload: { n: 1 } });
      await firstStarted.promise;
      expect((await first.jobStatus("orphan"))?.state).toBe("running");

      const ran: ClaimedJob[] = [];
      const record: JobHandler = async (job) => {
        ran.push(job);
      };
      if (db.provider === "postgresql") {
        // A live lease is left alone: the other process may still be working on it.
        const fresh = await queueOn(db);
        await fresh.start(record);
        expect((await fresh.jobStatus("orphan"))?.state).toBe("running");
        await fresh.stop();
      }
      const afterCrash = new Date(Date.now() + 10 * 60 * 1_000);
      const second = await queueOn(db, db.provider === "postgresql" ? { clock: () => afterCrash } : {});
      await second.start(record);
      await second.whenIdle();
      expect(ran.map((job) => [job.key, job.attempts])).toEqual([["orphan", 2]]);
      expect((await second.jobStatus("orphan"))?.state).toBe("done");

      // The dead worker's late outcome changes nothing.
      stuck.resolve();
      await first.stop();
      expect(await second.jobStatus("orphan")).toMatchObject({ state: "done", attempts: 2 });
      expect(ran).toHaveLength(1);
    });

    it("fails instead of retrying a taken-back job that used all its attempts", async () => {
      const db = await database();
      const first = await queueOn(db, { maxAttempts: 1 });
      const stuck = deferred();
      const started = deferred();
      await first.start(async () => {
        started.resolve();
        await stuck.promise;
      });
      await first.add({ queue: "q", key: "killer", payload: {} });
      await started.promise;
      const afterCrash = new Date(Date.now() + 10 * 60 * 1_000);
      const second = await queueOn(db, { maxAttempts: 1, clock: () => afterCrash });
      const ran: string[] = [];
      await second.start(async (job) => {
        ran.push(job.key);
      });
      await second.whenIdle();
      expect(ran).toEqual([]);
      expect(await second.jobStatus("killer")).toMatchObject({ state: "failed", attempts: 1 });
      stuck.resolve();
      await first.stop();
    });

    it("stops taking jobs on stop, waits for the running one, and leaves the rest for the next start", async () => {
      const db = await database();
      const queue = await queueOn(db);
      const release = deferred();
      const started = deferred();
      const ran: string[] = [];
      await queue.start(async (job) => {
        started.resolve();
        await release.promise;
        ran.push(job.key);
      });
      await queue.add({ queue: "q", key: "one", payload: {} });
      await started.promise;
      await queue.add({ queue: "q", key: "two", payload: {} });
      let stopped = false;
      const stopping = queue.stop().then(() => {
        stopped = true;
      });
      for (let tick = 0; tick < 10; tick++) await new Promise((resolve) => setImmediate(resolve));
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      expect(ran).toEqual(["one"]);
      expect((await queue.jobStatus("two"))?.state).toBe("pending");

      const next = await queueOn(db);
      await next.start(async (job) => {
        ran.push(job.key);
      });
      await next.whenIdle();
      expect(ran).toEqual(["one", "two"]);
    });

    it("is idle at once with nothing to do, and only after the due work is done", async () => {
      const queue = await queueOn(await database());
      let finished = 0;
      await queue.start(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        finished++;
      });
      await queue.whenIdle();
      await queue.add({ queue: "q", key: "future", payload: {}, runAt: new Date(Date.now() + 3_600_000) });
      for (let index = 0; index < 10; index++)
        await queue.add({ queue: `q${index % 3}`, key: `k${index}`, payload: {} });
      await queue.whenIdle();
      expect(finished).toBe(10);
    });

    it("lets two workers share one database without running a job twice or out of order", async () => {
      const db = await database();
      const workers = [await queueOn(db, { concurrency: 3 }), await queueOn(db, { concurrency: 3 })];
      const seen = new Map<string, number[]>();
      const active = new Set<string>();
      let overlaps = 0;
      const handler: JobHandler = async (job) => {
        if (active.has(job.queue)) overlaps++;
        active.add(job.queue);
        await new Promise((resolve) => setImmediate(resolve));
        seen.set(job.queue, [...(seen.get(job.queue) ?? []), (job.payload as { index: number }).index]);
        active.delete(job.queue);
      };
      for (const worker of workers) await worker.start(handler);
      const queues = Array.from({ length: 12 }, (_, index) => `chat-${index}`);
      await Promise.all(
        queues.map(async (name, queueIndex) => {
          for (let index = 0; index < 5; index++) {
            const worker = workers[(queueIndex + index) % 2];
            await worker?.add({ queue: name, key: `${name}:${index}`, payload: { index } });
          }
        }),
      );
      await waitFor(() => [...seen.values()].reduce((sum, list) => sum + list.length, 0) === queues.length * 5);
      for (const worker of workers) await worker.whenIdle();
      for (const name of queues) expect(seen.get(name)).toEqual([0, 1, 2, 3, 4]);
      expect(overlaps).toBe(0);
    });

    it("forgets finished keys after the retention time, so they can be added again", async () => {
      const db = await database();
      const first = await queueOn(db);
      await first.start(async () => undefined);
      await first.add({ queue: "q", key: "old", payload: {} });
      await first.whenIdle();
      await first.stop();
      expect(await first.add({ queue: "q", key: "old", payload: {} })).toBe(false);

      const later = new Date(Date.now() + 8 * 24 * 60 * 60 * 1_000);
      const second = await queueOn(db, { clock: () => later, retentionMs: 7 * 24 * 60 * 60 * 1_000 });
      const ran: string[] = [];
      await second.start(async (job) => {
        ran.push(job.key);
      });
      expect(await second.jobStatus("old")).toBeUndefined();
      expect(await second.add({ queue: "q", key: "old", payload: {} })).toBe(true);
      await second.whenIdle();
      expect(ran).toEqual(["old"]);
    });

    it("refuses a second start", async () => {
      const queue = await queueOn(await database());
      await queue.start(async () => undefined);
      await expect(queue.start(async () => undefined)).rejects.toThrow(/already started/);
    });
  });
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
