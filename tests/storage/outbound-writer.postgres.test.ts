import pg from "pg";
import { expect, it } from "vitest";
import { openStore } from "../../src/storage/open-store.js";
import { sharedPoolSize } from "../../src/storage/prisma/postgres-pool.js";
import { capturingLogger } from "../telegram/helpers.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

/** More than the store's shared pool holds (`sharedPoolSize`). */
const blockedWrites = 16;

describePostgres("PostgreSQL: the write after a platform post", (serverUrl) => {
  // Until this write commits, a SIGKILL makes the re-run post again: it must not wait in line
  // for a connection of the pool that every other step's statements share.
  it("commits while every connection of the store's shared pool is taken", async () => {
    const database = await createPostgresDatabase(serverUrl());
    const opened = await openStore({ databaseUrl: database.url, logger: quietLogger() });
    const blocker = new pg.Client({ connectionString: database.url });
    try {
      await opened.store.ensureChat("telegram:1", "main", "telegram");
      // The test's own transaction locks the chat's row: every update of it waits, holding its
      // pool connection, until the test lets go.
      await blocker.connect();
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "Chat" WHERE "key" = 'telegram:1' FOR UPDATE`);
      let updatesDone = 0;
      const updates = Array.from({ length: blockedWrites }, (_, count) =>
        opened.store.setAgentTurns("telegram:1", count).then(() => {
          updatesDone += 1;
        }),
      );
      await waitFor(async () => (await lockWaiters(blocker)) >= sharedPoolSize);

      await withinSeconds(
        10,
        opened.store.recordOutbound({
          chatKey: "telegram:1",
          refKind: "message",
          refId: "m1",
          platformMessageIds: ["41", "42"],
        }),
      );
      expect(updatesDone).toBe(0);
      await blocker.query("ROLLBACK");
      await Promise.all(updates);
      expect((await opened.store.getOutbound("message", "m1"))?.platformMessageIds).toEqual(["41", "42"]);
    } finally {
      await blocker.end().catch(() => undefined);
      await opened.close();
      await database.drop();
    }
  }, 60_000);

  it("a write PostgreSQL refuses is sent once more with a warn log line, then fails with its error", async () => {
    const database = await createPostgresDatabase(serverUrl());
    const { logger, lines } = capturingLogger();
    const opened = await openStore({ databaseUrl: database.url, logger });
    try {
      await opened.store.ensureChat("telegram:1", "main", "telegram");
      // PostgreSQL's text cannot hold a NUL character: both sends are refused.
      const write = opened.store.recordOutbound({
        chatKey: "telegram:1",
        refKind: "message",
        refId: "m1",
        platformMessageIds: ["4\u00002"],
      });
      await expect(write).rejects.toThrow(/0x00/);
      const warned = lines.filter((line) => line.msg === "recording a post's ids failed; sending the write once more");
      expect(warned).toHaveLength(1);
      expect(await opened.store.getOutbound("message", "m1")).toBeUndefined();
    } finally {
      await opened.close();
      await database.drop();
    }
  }, 60_000);
});

/** Sessions of the database waiting for a lock (the store's updates behind the test's row lock). */
async function lockWaiters(client: pg.Client): Promise<number> {
  // Inside a transaction the statistics are a snapshot taken once: take a fresh one.
  await client.query("SELECT pg_stat_clear_snapshot()");
  const rows = await client.query<{ waiting: string }>(
    `SELECT count(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return Number(rows.rows[0]?.waiting ?? 0);
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition not met within 10 s");
}

async function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
