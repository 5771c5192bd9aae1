import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../log/logger.js";
import { migrateDatabase } from "../migrate.js";
import { createDatabaseClient, type DatabaseClient } from "./database-client.js";
import { parseDatabaseUrl } from "./database-target.js";
import { isUniqueViolation } from "./prisma-errors.js";
import { PrismaRawSql, rawSqlOf } from "./prisma-raw-sql.js";
import { type RawSql, sql } from "./raw-sql.js";
import { SqliteRawSql } from "./sqlite-raw-sql.js";

/** The statements around Prisma's client must read and write exactly what Prisma does. */
describe("SqliteRawSql", () => {
  const directories: string[] = [];
  const clients: DatabaseClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.$disconnect();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  async function open(): Promise<{ db: DatabaseClient; raw: RawSql; prisma: RawSql; count: { value: number } }> {
    const directory = mkdtempSync(join(tmpdir(), "rt-raw-sql-"));
    directories.push(directory);
    const url = `file:${join(directory, "test.db")}`;
    await migrateDatabase({ databaseUrl: url, logger: silentLogger() });
    const count = { value: 0 };
    const db = await createDatabaseClient(parseDatabaseUrl(url), { statements: count });
    clients.push(db);
    return { db, raw: rawSqlOf(db), prisma: new PrismaRawSql(db), count };
  }

  const selectChat = (key: string) => sql`
    SELECT "key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt" FROM "Chat" WHERE "key" = ${key}`;

  it("is what createDatabaseClient sets up for SQLite", async () => {
    const { raw } = await open();
    expect(raw).toBeInstanceOf(SqliteRawSql);
  });

  it("reads rows exactly as $queryRaw does, and writes dates Prisma's model API reads back", async () => {
    const { db, raw, prisma } = await open();
    const createdAt = new Date("2026-01-02T03:04:05.678Z");
    await raw.execute(sql`
      INSERT INTO "Chat" ("key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt")
      VALUES (${"c1"}, ${"w"}, ${"console"}, ${2}, ${0}, ${createdAt})`);
    await db.chat.create({ data: { key: "c2", world: "w", platform: "console", createdAt } });
    for (const key of ["c1", "c2"]) {
      const direct = await raw.rows(selectChat(key));
      expect(direct).toEqual(await prisma.rows(selectChat(key)));
      expect(direct[0]).toMatchObject({ key, createdAt });
    }
    expect((await db.chat.findUniqueOrThrow({ where: { key: "c1" } })).createdAt).toEqual(createdAt);
    // Dates compare as the same text either way.
    const later = await raw.rows<{ key: string }>(
      sql`SELECT "key" FROM "Chat" WHERE "createdAt" >= ${createdAt} ORDER BY "key"`,
    );
    expect(later.map((row) => row.key)).toEqual(["c1", "c2"]);
  });

  it("reads counts, sums, floats, nulls, empty aggregates and bound values as $queryRaw does", async () => {
    const { db, raw, prisma } = await open();
    await db.chat.create({ data: { key: "c1", world: "w", platform: "console" } });
    await db.usageDay.create({
      data: { world: "w", agent: "a", day: "2026-01-01", calls: 3, costUsd: 0.25, updatedAt: new Date() },
    });
    const statements = [
      sql`SELECT COUNT(*) AS n, MAX("createdAt") AS newest FROM "Chat"`,
      sql`SELECT MAX("createdAt") AS newest, SUM("agentTurnsSinceHuman") AS total FROM "Chat" WHERE 0`,
      sql`SELECT "costUsd", "calls", SUM("costUsd") AS cost, SUM("calls") AS calls, "updatedAt" FROM "UsageDay" GROUP BY "world"`,
      sql`SELECT 1 = 1 AS yes, NULL AS empty, 1.5 AS half, ${true} AS flag, ${"2020-01-01"} AS text, ${7} AS seven`,
      sql`SELECT EXISTS (SELECT 1 FROM "Chat") AS present, COALESCE(MAX("calls"), 0) AS most FROM "UsageDay" WHERE 0`,
    ];
    for (const statement of statements) expect(await raw.rows(statement)).toEqual(await prisma.rows(statement));
  });

  it("throws a unique violation that isUniqueViolation recognises", async () => {
    const { raw } = await open();
    const insert = () =>
      raw.execute(sql`
        INSERT INTO "Chat" ("key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt")
        VALUES (${"dup"}, ${"w"}, ${"console"}, ${0}, ${0}, ${new Date()})`);
    await insert();
    const error = await insert().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(new Error("something else"))).toBe(false);
  });

  it("writes a batch all or nothing, and counts every statement with the transaction's own", async () => {
    const { raw, count } = await open();
    const chat = (key: string) => sql`
      INSERT INTO "Chat" ("key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt")
      VALUES (${key}, ${"w"}, ${"console"}, ${0}, ${0}, ${new Date()}) RETURNING "key"`;
    const before = count.value;
    expect(await raw.batch([chat("a"), chat("b")])).toEqual([[{ key: "a" }], [{ key: "b" }]]);
    expect(count.value - before).toBe(4);
    // One statement needs no transaction around it.
    expect(await raw.batch([chat("d")])).toEqual([[{ key: "d" }]]);
    expect(count.value - before).toBe(5);
    await expect(raw.batch([chat("c"), chat("a")])).rejects.toSatisfy(isUniqueViolation);
    expect(await raw.rows(selectChat("c"))).toEqual([]);
    // The connection is free again after the rollback.
    expect(await raw.rows<{ key: string }>(selectChat("b"))).toHaveLength(1);
  });

  it("answers a statement SQLite refuses with the driver's message", async () => {
    const { raw } = await open();
    await expect(raw.rows(sql`SELECT "nothing" FROM "Chat"`)).rejects.toThrow(/nothing/);
  });
});
