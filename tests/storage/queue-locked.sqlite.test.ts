import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { expect, it } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore } from "../../src/storage/open-store.js";
import { waitUntil } from "../tools/wait-until.js";
import { quietLogger, temporarySqlite } from "./test-databases.js";

/** Another process holding `BEGIN EXCLUSIVE` on the file for `ms` (as `sqlite3` with an open transaction does). */
function holdWriteLock(path: string, ms: number): { locked: Promise<void>; exited: Promise<void> } {
  const script = `const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(process.argv[1]);
    db.exec("BEGIN EXCLUSIVE");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ["-e", script, path, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  const locked = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { locked, exited };
}

it("SQLite locked by another process longer than the busy timeout: each step runs again in place, in order, once; nothing is left running", async () => {
  const database = temporarySqlite();
  await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
  const file = process.env.FAULT_LOG;
  const logger = file === undefined ? quietLogger() : pino({ level: "info" }, pino.destination(file));
  const store = await openStore({ databaseUrl: database.url, logger, migrate: false, busyTimeoutMs: 300 });
  try {
    const queue = store.createQueue({ logger, retryDelayMs: () => 100 });
    const done = new Map<string, number[]>();
    const completions = new Map<string, number>();
    await queue.start(async (job) => {
      const { index } = job.payload as { index: number };
      await sleep(10);
      completions.set(job.key, (completions.get(job.key) ?? 0) + 1);
      done.set(job.queue, [...(done.get(job.queue) ?? []), index]);
    });
    const chats = ["chat-a", "chat-b", "chat-c"];
    const perChat = 12;
    const feeding = Promise.all(
      chats.map(async (chat) => {
        for (let index = 0; index < perChat; index++) {
          // An add refused while the file is locked is tried again (as an inbound message's is).
          for (;;) {
            try {
              await queue.add({ queue: chat, key: `${chat}:${index}`, payload: { index } });
              break;
            } catch {
              await sleep(50);
            }
          }
          await sleep(30);
        }
      }),
    );
    for (let fault = 0; fault < 2; fault++) {
      await sleep(150);
      const holder = holdWriteLock(database.url.slice("file:".length), 1_500);
      await holder.exited;
    }
    await feeding;
    await waitUntil(
      "every step ran",
      () => [...done.values()].reduce((sum, indexes) => sum + indexes.length, 0) >= chats.length * perChat,
      30_000,
    ).catch((error: unknown) => {
      process.stderr.write(`done: ${JSON.stringify([...done])}\n`);
      throw error;
    });
    await queue.whenIdle();
    for (const chat of chats) expect(done.get(chat)).toEqual(Array.from({ length: perChat }, (_, index) => index));
    expect([...completions.values()].filter((count) => count > 1)).toEqual([]);
    for (const chat of chats)
      for (let index = 0; index < perChat; index++)
        expect((await queue.jobStatus(`${chat}:${index}`))?.state).toBe("done");
    await queue.stop();
  } finally {
    await store.close();
    database.remove();
  }
}, 60_000);
