import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { prismaFolder } from "../../src/storage/migrate.js";
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

  it("SQLite 0001_init is what prisma migrate diff makes of the schema", async () => {
    // The CLI's adapter opens (and so creates) the database it is given: a scratch file.
    const scratch = mkdtempSync(join(tmpdir(), "rt-diff-"));
    try {
      const expected = await diffFromEmpty("sqlite", `file:${join(scratch, "unused.db")}`);
      expect(readFileSync(join(prismaFolder, "sqlite", "migrations", "0001_init", "migration.sql"), "utf8")).toBe(
        expected,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it.skipIf(postgresServerUrl() === undefined)(
    "PostgreSQL 0001_init is what prisma migrate diff makes of the schema",
    async () => {
      // The JS schema engine connects to a database even for a diff from nothing.
      const expected = await diffFromEmpty("postgresql", postgresServerUrl() ?? "");
      expect(readFileSync(join(prismaFolder, "postgresql", "migrations", "0001_init", "migration.sql"), "utf8")).toBe(
        expected,
      );
    },
  );
});
