import { describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore } from "../../src/storage/open-store.js";
import { queueContract } from "./queue-contract.js";
import { quietLogger, temporarySqlite } from "./test-databases.js";

queueContract("SQLite", async () => {
  const database = temporarySqlite();
  await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
  return {
    provider: "sqlite",
    open: () => openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false }),
    remove: async () => database.remove(),
  };
});

describe("SqlWorkQueue on SQLite", () => {
  it("claims a job added to an idle queue directly, without scanning every queue", async () => {
    const database = temporarySqlite();
    const store = await openStore({ databaseUrl: database.url, logger: quietLogger() });
    try {
      const queue = store.createQueue({ logger: quietLogger() });
      const ran: string[] = [];
      await queue.start(async (job) => {
        ran.push(job.key);
      });
      await queue.whenIdle();
      const before = store.statementCount();
      await queue.add({ queue: "chat", key: "one", payload: {} });
      await queue.whenIdle();
      expect(ran).toEqual(["one"]);
      // Insert, claim, complete, the queue's next (none), whenIdle's count; a scan would add one.
      expect(store.statementCount() - before).toBe(5);
      // A job due later is still found by a scan when its time comes.
      ran.length = 0;
      await queue.add({ queue: "chat", key: "later", payload: {}, runAt: new Date(Date.now() + 50) });
      await vi.waitFor(() => expect(ran).toEqual(["later"]), { timeout: 5_000 });
      await queue.stop();
    } finally {
      await store.close();
      database.remove();
    }
  });
});
