import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createClient } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { defaultDatabaseUrl, openStore } from "../../src/storage/open-store.js";
import { lockSqliteDatabase } from "../../src/storage/sqlite-process-lock.js";
import { quietLogger } from "./test-databases.js";

describe("openStore", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function scratch(): string {
    const directory = mkdtempSync(join(tmpdir(), "rt-open-"));
    directories.push(directory);
    return directory;
  }

  it("defaults to a SQLite file under ./data", () => {
    expect(defaultDatabaseUrl).toBe("file:./data/roundtable.db");
  });

  it("creates the SQLite file's directory, migrates it and switches it to WAL", async () => {
    const path = join(scratch(), "a", "b", "roundtable.db");
    const opened = await openStore({ databaseUrl: `file:${path}`, logger: quietLogger() });
    expect(opened.provider).toBe("sqlite");
    await opened.store.ensureChat("console::team:", "team", "console");
    await opened.close();
    await opened.close();
    expect(existsSync(path)).toBe(true);
    const client = createClient({ url: `file:${path}` });
    expect((await client.execute("PRAGMA journal_mode")).rows[0]?.[0]).toBe("wal");
    expect((await client.execute('SELECT count(*) FROM "Chat"')).rows[0]?.[0]).toBe(1);
    client.close();
  });

  it("creates the database file and its companions (-wal, -shm, the process lock) readable by their owner only", async () => {
    const path = join(scratch(), "data", "roundtable.db");
    const lock = lockSqliteDatabase({
      databaseUrl: `file:${path}`,
      command: "roundtable start",
      logger: quietLogger(),
    });
    const opened = await openStore({ databaseUrl: `file:${path}`, logger: quietLogger() });
    await opened.store.ensureChat("console::team:", "team", "console");
    const files = readdirSync(dirname(path)).filter((name) => name.startsWith("roundtable.db"));
    expect(files).toEqual(expect.arrayContaining(["roundtable.db", "roundtable.db-wal", "roundtable.db-shm"]));
    for (const name of files) expect([name, statSync(join(dirname(path), name)).mode & 0o777]).toEqual([name, 0o600]);
    await opened.close();
    lock.release();
  });

  it("counts the SQL statements it sends, transactions' own included", async () => {
    const opened = await openStore({ databaseUrl: `file:${join(scratch(), "count.db")}`, logger: quietLogger() });
    const before = opened.statementCount();
    await opened.store.getChat("console::team:");
    const afterRead = opened.statementCount();
    expect(afterRead).toBe(before + 1);
    await opened.store.ensureChat("console::team:", "team", "console");
    expect(opened.statementCount()).toBeGreaterThan(afterRead);
    await opened.close();
  });

  it("keeps the data across a reopen", async () => {
    const url = `file:${join(scratch(), "roundtable.db")}`;
    const first = await openStore({ databaseUrl: url, logger: quietLogger() });
    await first.store.addMessage({
      id: "m1",
      chatKey: "c",
      author: { kind: "human", id: "u", name: "U" },
      text: "kept",
    });
    await first.close();
    const second = await openStore({ databaseUrl: url, logger: quietLogger() });
    expect((await second.store.getMessage("m1"))?.text).toBe("kept");
    await second.close();
  });

  it("stops its queues on close, letting the running job finish", async () => {
    const opened = await openStore({ databaseUrl: `file:${join(scratch(), "q.db")}`, logger: quietLogger() });
    const queue = opened.createQueue();
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      void queue.start(async () => {
        resolve();
        await new Promise<void>((done) => {
          release = done;
        });
      });
    });
    await queue.add({ queue: "q", key: "k", payload: {} });
    await started;
    let closed = false;
    const closing = opened.close().then(() => {
      closed = true;
    });
    for (let tick = 0; tick < 10; tick++) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(closed).toBe(true);
  });

  it("refuses a URL it does not know with a config error", async () => {
    await expect(openStore({ databaseUrl: "mysql://db/rt", logger: quietLogger() })).rejects.toMatchObject({
      code: "config.invalid",
    });
  });

  it("fails clearly, without the password, when PostgreSQL is unreachable", async () => {
    const failure = openStore({ databaseUrl: "postgresql://rt:hunter2@127.0.0.1:1/rt", logger: quietLogger() });
    await expect(failure).rejects.toMatchObject({ code: "storage.failed" });
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
