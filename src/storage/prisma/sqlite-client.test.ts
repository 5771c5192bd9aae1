import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteClient } from "./sqlite-client.js";

describe("openSqliteClient", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function databaseFile(): { url: string; path: string } {
    const directory = mkdtempSync(join(tmpdir(), "rt-sqlite-"));
    directories.push(directory);
    const path = join(directory, "test.db");
    return { url: `file:${path}`, path };
  }

  it("keeps its (short, native) busy timeout and WAL mode after transactions", async () => {
    const file = databaseFile();
    const client = openSqliteClient({ ...file, busyTimeoutMs: 1234 });
    await client.execute("CREATE TABLE t (v INTEGER)");
    for (let index = 0; index < 3; index++) {
      const transaction = await client.transaction("deferred");
      await transaction.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [index] });
      await transaction.commit();
    }
    // SQLite's own handler waits 20 ms on the thread; the rest of the 1234 ms is waited between tries.
    expect((await client.execute("PRAGMA busy_timeout")).rows[0]?.[0]).toBe(20);
    expect((await client.execute("PRAGMA journal_mode")).rows[0]?.[0]).toBe("wal");
    expect((await client.execute("SELECT count(*) FROM t")).rows[0]?.[0]).toBe(3);
    client.close();
  });

  it("waits out another process's write lock with the event loop free, then writes", async () => {
    const file = databaseFile();
    const client = openSqliteClient({ ...file, busyTimeoutMs: 20_000 });
    await client.execute("CREATE TABLE t (v INTEGER)");
    const holder = holdWriteLock(file.path, 1_500);
    await holder.locked;
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    try {
      const write = client.execute("INSERT INTO t (v) VALUES (1)");
      let ticksBeforeWritten = -1;
      await write.then(() => {
        ticksBeforeWritten = ticks;
      });
      // SQLite's busy handler sleeping on the thread would let no timer run before the write returned.
      expect(ticksBeforeWritten).toBeGreaterThan(0);
    } finally {
      clearInterval(ticking);
    }
    await holder.exited;
    expect((await client.execute("SELECT v FROM t ORDER BY v")).rows.map((row) => row[0])).toEqual([1, 99]);
    client.close();
  });

  it("rolls a transaction back", async () => {
    const client = openSqliteClient(databaseFile());
    await client.execute("CREATE TABLE t (v INTEGER)");
    const transaction = await client.transaction("write");
    await transaction.execute("INSERT INTO t (v) VALUES (1)");
    await transaction.rollback();
    expect((await client.execute("SELECT count(*) FROM t")).rows[0]?.[0]).toBe(0);
    client.close();
  });

  it("lets two clients of one file in one process take turns instead of blocking each other", async () => {
    const file = databaseFile();
    const first = openSqliteClient({ ...file, busyTimeoutMs: 200 });
    const second = openSqliteClient({ ...file, busyTimeoutMs: 200 });
    await first.execute("CREATE TABLE t (v INTEGER)");
    const open = await first.transaction("write");
    await open.execute("INSERT INTO t (v) VALUES (1)");
    // Without the shared lock this write would hit SQLITE_BUSY (the first holds the write lock).
    const waiting = second.execute("INSERT INTO t (v) VALUES (2)");
    await new Promise((resolve) => setImmediate(resolve));
    await open.execute("INSERT INTO t (v) VALUES (3)");
    await open.commit();
    await waiting;
    expect((await second.execute("SELECT v FROM t ORDER BY rowid")).rows.map((row) => row[0])).toEqual([1, 3, 2]);
    first.close();
    second.close();
  });

  it("reuses a prepared statement with new arguments, and reports a constraint error with its SQLite code", async () => {
    const client = openSqliteClient(databaseFile());
    await client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, flag INTEGER)");
    for (const [id, v] of [
      [1, "a"],
      [2, "b"],
    ] as const)
      await client.execute({ sql: "INSERT INTO t (id, v, flag) VALUES (?, ?, ?)", args: [id, v, true] });
    const read = async (id: number) => {
      const row = (await client.execute({ sql: "SELECT v, flag FROM t WHERE id = ?", args: [id] })).rows[0];
      return [row?.[0], row?.[1]];
    };
    expect(await read(1)).toEqual(["a", 1]);
    expect(await read(2)).toEqual(["b", 1]);
    const result = await client.execute({ sql: "SELECT v FROM t WHERE id = ?", args: [2] });
    expect(result.columns).toEqual(["v"]);
    expect(result.columnTypes).toEqual(["TEXT"]);
    await expect(
      client.execute({ sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [1, "again"] }),
    ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY", rawCode: 1555 });
    expect((await client.execute("UPDATE t SET v = 'c'")).rowsAffected).toBe(2);
    client.close();
  });
});

/** Another process holding `BEGIN EXCLUSIVE` on the file for `ms` (it writes 99 meanwhile). */
function holdWriteLock(path: string, ms: number): { locked: Promise<void>; exited: Promise<void> } {
  const script = `const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(process.argv[1]);
    db.exec("BEGIN EXCLUSIVE"); db.exec("INSERT INTO t (v) VALUES (99)");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ["-e", script, path, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  const locked = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { locked, exited };
}
