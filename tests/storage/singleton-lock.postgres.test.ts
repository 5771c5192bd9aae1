import { once } from "node:events";
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { PostgresSingletonLock } from "../../src/storage/prisma/postgres-singleton-lock.js";
import type { SingletonLease } from "../../src/world/queue/singleton-lock.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

/**
 * The once-per-bot locks on PostgreSQL (Telegram long polling, Discord's gateway): each lock
 * instance stands for one process. All of a process's locks share one connection, so its
 * connections do not grow with its bots.
 */
describePostgres("PostgresSingletonLock", (serverUrl) => {
  let database: { url: string; drop(): Promise<void> };
  let admin: pg.Client;
  const stop = new AbortController();
  const leases: SingletonLease[] = [];

  beforeEach(async () => {
    database = await createPostgresDatabase(serverUrl());
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(leases.splice(0).map((lease) => lease.release()));
    await admin.end();
    await database.drop();
  });

  /** The connections holding or asking for locks (the locks' own `application_name`). */
  async function lockConnections(): Promise<number> {
    const { rows } = await admin.query<{ count: string }>(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'roundtable-locks'",
    );
    return Number(rows[0]?.count);
  }

  async function take(lock: PostgresSingletonLock, name: string, signal = stop.signal): Promise<SingletonLease> {
    const lease = await lock.acquire(name, signal);
    leases.push(lease);
    return lease;
  }

  it("holds every lock of a process on one connection, and closes it once the last is released", async () => {
    const lock = new PostgresSingletonLock(database.url, quietLogger());
    const held = [await take(lock, "telegram:1"), await take(lock, "telegram:2"), await take(lock, "discord:3")];
    expect(await lockConnections()).toBe(1);
    for (const lease of held) expect(lease.lost.aborted).toBe(false);
    await held[0]?.release();
    await held[1]?.release();
    expect(await lockConnections()).toBe(1);
    await held[2]?.release();
    await expect.poll(lockConnections).toBe(0);
  });

  it("gives a name to one process at a time; the other takes it once it is released", async () => {
    const first = new PostgresSingletonLock(database.url, quietLogger());
    const second = new PostgresSingletonLock(database.url, quietLogger());
    const held = await take(first, "telegram:1");
    let taken = false;
    const waiting = take(second, "telegram:1").then((lease) => {
      taken = true;
      return lease;
    });
    // The second process asks (its connection is open) and is refused while the first holds it.
    await expect.poll(lockConnections).toBe(2);
    expect(taken).toBe(false);
    // Another name is free for the second process meanwhile.
    await take(second, "telegram:2");
    expect(taken).toBe(false);
    await held.release();
    const lease = await waiting;
    expect(lease.lost.aborted).toBe(false);
  });

  it("gives a name held in this process to a second asker here only once it is released", async () => {
    // Advisory locks are re-entrant within a session: the process itself must refuse the second.
    const lock = new PostgresSingletonLock(database.url, quietLogger());
    const held = await take(lock, "telegram:1");
    let taken = false;
    const waiting = take(lock, "telegram:1").then((lease) => {
      taken = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(taken).toBe(false);
    await held.release();
    await waiting;
    expect(taken).toBe(true);
  });

  it("when its connection breaks, every lease held on it is lost and another process takes over", async () => {
    const first = new PostgresSingletonLock(database.url, quietLogger());
    const second = new PostgresSingletonLock(database.url, quietLogger());
    const held = [await take(first, "telegram:1"), await take(first, "telegram:2")];
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'roundtable-locks'",
    );
    const taking = take(second, "telegram:1");
    await expect.poll(lockConnections).toBe(2);
    const firstPid = rows[0]?.pid;
    await admin.query("SELECT pg_terminate_backend($1)", [firstPid]);
    await Promise.all(held.map((lease) => (lease.lost.aborted ? undefined : once(lease.lost, "abort"))));
    await taking;
    // The first process may take its names again (the broken session's are forgotten).
    const again = await take(first, "telegram:2");
    expect(again.lost.aborted).toBe(false);
  });

  it("an acquire stopped while it waits rejects with the signal's reason and leaves no connection", async () => {
    const first = new PostgresSingletonLock(database.url, quietLogger());
    const second = new PostgresSingletonLock(database.url, quietLogger());
    const held = await take(first, "telegram:1");
    const stopping = new AbortController();
    const waiting = second.acquire("telegram:1", stopping.signal);
    await expect.poll(lockConnections).toBe(2);
    stopping.abort(new Error("stopping"));
    await expect(waiting).rejects.toThrow("stopping");
    await expect.poll(lockConnections).toBe(1);
    await held.release();
    await expect.poll(lockConnections).toBe(0);
  });
});
