import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { prismaFolder } from "../../src/storage/migrate.js";
import { applySql, emptyShape, type SchemaShape, tablesOf } from "./schema-shape.js";
import { postgresServerUrl } from "./test-databases.js";

const packageRoot = fileURLToPath(new URL("../../", import.meta.url));
const diffConfig = fileURLToPath(new URL("./prisma-diff.config.ts", import.meta.url));

/** The schema without its generator and datasource blocks and without comments. */
function models(provider: "sqlite" | "postgresql"): string {
  const schema = readFileSync(join(prismaFolder, provider, "schema.prisma"), "utf8");
  return schema
    .replace(/^(generator|datasource) \w+ \{[^}]*\}/gm, "")
    .split("\n")
    .map((line) => line.replace(/\/\/.*$/, "").trimEnd())
    .filter((line) => line.trim() !== "")
    .join("\n");
}

function migrationNames(provider: "sqlite" | "postgresql"): string[] {
  return readdirSync(join(prismaFolder, provider, "migrations")).sort();
}

/** `prisma migrate diff` from nothing to the schema: what 0001_init must be. */
function diffFromEmpty(provider: "sqlite" | "postgresql", databaseUrl: string): Promise<string> {
  const schema = join("prisma", provider, "schema.prisma");
  return new Promise((resolve, reject) => {
    execFile(
      join(packageRoot, "node_modules", ".bin", "prisma"),
      ["migrate", "diff", "--config", diffConfig, "--from-empty", "--to-schema-datamodel", schema, "--script"],
      {
        cwd: packageRoot,
        timeout: 60_000,
        env: { ...process.env, PRISMA_SCHEMA: schema, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/** What every shipped migration, applied in order, builds. */
function migratedShape(provider: "sqlite" | "postgresql"): SchemaShape {
  const shape = emptyShape();
  for (const name of migrationNames(provider)) {
    applySql(shape, readFileSync(join(prismaFolder, provider, "migrations", name, "migration.sql"), "utf8"));
  }
  return shape;
}

/** The migrations build every table, column, index and constraint the schema has (hand-written extras allowed). */
function expectMigrationsBuildSchema(provider: "sqlite" | "postgresql", diff: string): void {
  const expected = applySql(emptyShape(), diff);
  const actual = migratedShape(provider);
  expect(tablesOf(actual)).toEqual(tablesOf(expected));
  for (const statement of expected.statements) expect(actual.statements).toContain(statement);
}

describe("the two Prisma schemas", () => {
  it("have the same models", () => {
    const sqlite = models("sqlite");
    expect(sqlite).toContain("model Job {");
    expect(models("postgresql")).toBe(sqlite);
  });

  it("ship the same migrations", () => {
    expect(migrationNames("postgresql")).toEqual(migrationNames("sqlite"));
    expect(migrationNames("sqlite")[0]).toBe("0001_init");
  });

  it("SQLite migrations, applied in order, build what prisma migrate diff makes of the schema", async () => {
    // The CLI's adapter opens (and so creates) the database it is given: a scratch file.
    const scratch = mkdtempSync(join(tmpdir(), "rt-diff-"));
    try {
      expectMigrationsBuildSchema("sqlite", await diffFromEmpty("sqlite", `file:${join(scratch, "unused.db")}`));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it.skipIf(postgresServerUrl() === undefined)(
    "PostgreSQL migrations, applied in order, build what prisma migrate diff makes of the schema",
    async () => {
      // The JS schema engine connects to a database even for a diff from nothing.
      expectMigrationsBuildSchema("postgresql", await diffFromEmpty("postgresql", postgresServerUrl() ?? ""));
    },
  );
});
