import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterEach, beforeEach, expect, it } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { type OpenedStore, openStore } from "../../src/storage/open-store.js";
import { startTcpProxy, type TcpProxy } from "../fakes/tcp-proxy.js";
import { waitUntil } from "../tools/wait-until.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

/** Quiet, or with FAULT_LOG=<file> the queue's log there (to see what a failing run did). */
function faultLogger() {
  const file = process.env.FAULT_LOG;
  return file === undefined ? quietLogger() : pino({ level: "info" }, pino.destination(file));
}

/**
 * The database going away under the graphile-worker queue: every connection cut (as a
 * restart does) and new ones refused for a while, several times, through a proxy of the
 * test's own. The queue must never stop for good, run every step once (a step that threw
 * meanwhile runs again in its place), keep each chat's order, and run by itself afterwards.
 */
describePostgres("PostgreSQL work queue: the database goes away", (serverUrl) => {
  let database: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  const opened: OpenedStore[] = [];

  beforeEach(async () => {
    database = await createPostgresDatabase(serverUrl());
    await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
    const url = new URL(database.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  });

  afterEach(async () => {
    proxy.accept();
    for (const store of opened.splice(0)) await store.close();
    await proxy.close();
    await database.drop();
  });

  it("cut and refused three times: every step runs once, each chat in order, and the queue runs again after", async () => {
    const store = await openStore({ databaseUrl: proxy.urlFor(database.url), logger: quietLogger(), migrate: false });
    opened.push(store);
    const queue = store.createQueue({ logger: faultLogger(), concurrency: 4, retryDelayMs: () => 200 });
    const done = new Map<string, number[]>();
    const completions = new Map<string, number>();
    await queue.start(async (job) => {
      const { index } = job.payload as { index: number };
      // A step that uses the database, as every step does: it throws while the database is away.
      await store.store.ping();
      await sleep(15);
      await store.store.ping();
      completions.set(job.key, (completions.get(job.key) ?? 0) + 1);
      done.set(job.queue, [...(done.get(job.queue) ?? []), index]);
    });
    const chats = ["chat-a", "chat-b", "chat-c", "chat-d"];
    const perChat = 15;
    const feeding = Promise.all(
      chats.map(async (chat) => {
        for (let index = 0; index < perChat; index++) {
          // An add refused while the database is away is tried again (as an inbound message's is).
          for (;;) {
            try {
              await queue.add({ queue: chat, key: `${chat}:${index}`, payload: { index } });
              break;
            } catch {
              await sleep(100);
            }
          }
          await sleep(40);
        }
      }),
    );
    for (let fault = 0; fault < 3; fault++) {
      await sleep(400);
      proxy.refuse(1_500);
      proxy.cut();
      await sleep(1_600);
    }
    await feeding;
    await waitUntil(
      "every step ran",
      () => [...done.values()].reduce((sum, indexes) => sum + indexes.length, 0) >= chats.length * perChat,
      60_000,
    ).catch((error: unknown) => {
      process.stderr.write(`done: ${JSON.stringify([...done])}\n`);
      throw error;
    });
    await waitUntil("the queue runs", () => queue.isRunning(), 10_000);
    for (const chat of chats) expect(done.get(chat)).toEqual(Array.from({ length: perChat }, (_, index) => index));
    expect([...completions.values()].filter((count) => count > 1)).toEqual([]);
    // And it goes on by itself.
    await queue.add({ queue: "chat-a", key: "after", payload: { index: perChat } });
    await waitUntil("a step added after the faults ran", () => completions.get("after") === 1, 20_000);
  }, 120_000);
});
