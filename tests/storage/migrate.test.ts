import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createClient } from "@libsql/client";
import pg from "pg";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { listMigrations, migrateDatabase, migrationsTable, prismaFolder } from "../../src/storage/migrate.js";
import { createPostgresDatabase, describePostgres, quietLogger, temporarySqlite } from "./test-databases.js";

type Provider = "sqlite" | "postgresql";

/** The model names of the schema: every one must be a table after migrating. */
function modelNames(): string[] {
  const schema = readFileSync(join(prismaFolder, "sqlite", "schema.prisma"), "utf8");
  return [...schema.matchAll(/^model (\w+) \{/gm)].map((match) => match[1] ?? "").sort();
}

async function tableNames(provider: Provider, url: string): Promise<string[]> {
  if (provider === "sqlite") {
    const client = createClient({ url });
    try {
      const result = await client.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      );
      return result.rows.map((row) => String(row.name)).sort();
    } finally {
      client.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ name: string }>(
      "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    return result.rows.map((row) => row.name).sort();
  } finally {
    await client.end();
  }
}

function recordingLogger(): { logger: pino.Logger; lines: () => string } {
  let text = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines: () => text };
}

/** A copy of the package's prisma folder that a test may edit. */
function editablePrismaFolder(): string {
  const directory = mkdtempSync(join(tmpdir(), "rt-prisma-"));
  cpSync(prismaFolder, directory, { recursive: true });
  return directory;
}

function migrationSuite(provider: Provider, newDatabase: () => Promise<{ url: string; remove(): Promise<void> }>) {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function database() {
    const created = await newDatabase();
    cleanups.push(() => created.remove());
    return created;
  }

  it("applies every shipped migration to a fresh database, then nothing the second time", async () => {
    const { url } = await database();
    const shipped = (await listMigrations(provider)).map((migration) => migration.name);
    expect(shipped[0]).toBe("0001_init");
    expect(await migrateDatabase({ databaseUrl: url, logger: quietLogger() })).toEqual({ applied: shipped });
    expect(await tableNames(provider, url)).toEqual([...modelNames(), migrationsTable].sort());
    expect(await migrateDatabase({ databaseUrl: url, logger: quietLogger() })).toEqual({ applied: [] });
  });

  it("applies each migration once when two runs start together", async () => {
    const { url } = await database();
    const runs = await Promise.all([
      migrateDatabase({ databaseUrl: url, logger: quietLogger() }),
      migrateDatabase({ databaseUrl: url, logger: quietLogger() }),
    ]);
    const shipped = (await listMigrations(provider)).map((migration) => migration.name);
    expect(runs.flatMap((run) => run.applied).sort()).toEqual(shipped);
  });

  it("rolls a failing migration back whole, and applies it once fixed", async () => {
    const { url } = await database();
    const folder = editablePrismaFolder();
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const broken = join(folder, provider, "migrations", "9999_broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "migration.sql"), 'CREATE TABLE "Half" ("id" INTEGER);\nTHIS IS NOT SQL;\n');

    await expect(
      migrateDatabase({ databaseUrl: url, logger: quietLogger(), prismaDirectory: folder }),
    ).rejects.toMatchObject({
      code: "storage.failed",
      message: expect.stringContaining("9999_broken"),
    });
    expect(await tableNames(provider, url)).not.toContain("Half");

    writeFileSync(join(broken, "migration.sql"), 'CREATE TABLE "Half" ("id" INTEGER);\n');
    expect(await migrateDatabase({ databaseUrl: url, logger: quietLogger(), prismaDirectory: folder })).toEqual({
      applied: ["9999_broken"],
    });
    expect(await tableNames(provider, url)).toContain("Half");
  });

  it("reports an applied migration whose file changed since", async () => {
    const { url } = await database();
    const folder = editablePrismaFolder();
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    await migrateDatabase({ databaseUrl: url, logger: quietLogger(), prismaDirectory: folder });
    const file = join(folder, provider, "migrations", "0001_init", "migration.sql");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n-- edited\n`);
    const { logger, lines } = recordingLogger();
    expect(await migrateDatabase({ databaseUrl: url, logger, prismaDirectory: folder })).toEqual({ applied: [] });
    expect(lines()).toContain("0001_init");
    expect(lines()).toContain("changed since");
  });
}

describe("migrations on SQLite", () => {
  migrationSuite("sqlite", async () => {
    const database = temporarySqlite();
    return { url: database.url, remove: async () => database.remove() };
  });

  it("creates the database's directory", async () => {
    const root = mkdtempSync(join(tmpdir(), "rt-migrate-"));
    try {
      const url = `file:${join(root, "nested", "deeper", "roundtable.db")}`;
      expect((await migrateDatabase({ databaseUrl: url, logger: quietLogger() })).applied.length).toBeGreaterThan(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describePostgres("migrations on PostgreSQL", (serverUrl) => {
  migrationSuite("postgresql", async () => {
    const database = await createPostgresDatabase(serverUrl());
    return { url: database.url, remove: () => database.drop() };
  });
});

describe("migrating an unreachable PostgreSQL", () => {
  it("names the server, not its password", async () => {
    const url = "postgresql://rt:hunter2@127.0.0.1:1/none";
    const failure = migrateDatabase({ databaseUrl: url, logger: quietLogger() });
    await expect(failure).rejects.toMatchObject({ code: "storage.failed" });
    await expect(failure).rejects.toThrow(/127\.0\.0\.1:1/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
