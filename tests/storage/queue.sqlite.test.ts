import { describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore } from "../../src/storage/open-store.js";
import { createDatabaseClient } from "../../src/storage/prisma/database-client.js";
import { parseDatabaseUrl } from "../../src/storage/prisma/database-target.js";
import { claimStatement, dueQueuesStatement } from "../../src/storage/prisma/job-table.js";
import { rawSqlOf } from "../../src/storage/prisma/prisma-raw-sql.js";
import { concatStatements, type SqlStatement, sql } from "../../src/storage/prisma/raw-sql.js";
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

describe("the Job table's plans on SQLite", () => {
  /** What SQLite's planner does with `statement`: one line a table it reads. */
  async function planOf(url: string, statement: SqlStatement): Promise<string[]> {
    const db = await createDatabaseClient(parseDatabaseUrl(url));
    try {
      const rows = await rawSqlOf(db).rows<{ detail: string }>(concatStatements([sql`EXPLAIN QUERY PLAN `, statement]));
      return rows.map((row) => row.detail);
    } finally {
      await db.$disconnect();
    }
  }

  // Without the queue's own index SQLite read the claim's job and its "retry waiting" check by
  // ("state", "runAt"): every pending job of every queue, for each claim.
  it("a claim and the scan for due queues read a queue's jobs by the queue, not every pending job", async () => {
    const database = temporarySqlite();
    try {
      await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
      const now = new Date();
      const claim = await planOf(database.url, claimStatement("telegram:1", "token", now));
      const searches = claim.filter((line) => /^SEARCH (next|busy|waiting) /.test(line));
      expect(searches).toHaveLength(3);
      for (const line of searches) expect(line).toMatch(/USING (COVERING )?INDEX \S+ \(queue=\? AND state=\?/);
      const due = await planOf(database.url, dueQueuesStatement(now, 10));
      const checks = due.filter((line) => /^SEARCH (busy|waiting) /.test(line));
      expect(checks).toHaveLength(2);
      for (const line of checks) expect(line).toMatch(/USING (COVERING )?INDEX \S+ \(queue=\? AND state=\?/);
    } finally {
      database.remove();
    }
  });
});
