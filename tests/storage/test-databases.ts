import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { describe, inject, it } from "vitest";
import type { Logger } from "../../src/log/logger.js";

/** A logger that writes nothing. */
export function quietLogger(): Logger {
  return pino({ level: "silent" });
}

/** A fresh SQLite file URL in its own temporary directory; `remove` deletes the directory. */
export function temporarySqlite(): { url: string; directory: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), "rt-storage-"));
  return {
    url: `file:${join(directory, "roundtable.db")}`,
    directory,
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** The PostgreSQL server the global setup found or started, if any. */
export function postgresServerUrl(): string | undefined {
  const url = inject("postgresUrl");
  return url === "" ? undefined : url;
}

/** A fresh database `rt_test_<random>` on the test server; `drop` removes it (closing its sessions). */
export async function createPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rt_test_${randomBytes(6).toString("hex")}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A describe block for PostgreSQL suites. With no server: skipped (the global setup printed
 * why), except in CI (`CI=true`), where a failing test says PostgreSQL is required.
 */
export function describePostgres(name: string, body: (serverUrl: () => string) => void): void {
  const url = postgresServerUrl();
  if (url === undefined && process.env.CI === "true") {
    describe(name, () => {
      it("has a PostgreSQL server to run against (required in CI)", () => {
        throw new Error(`no PostgreSQL for the contract tests: ${inject("postgresProblem")}`);
      });
    });
    return;
  }
  // Skipped only when the environment has no PostgreSQL (the global setup warned loudly).
  describe.skipIf(url === undefined)(name, () =>
    body(() => {
      if (url === undefined) throw new Error("no PostgreSQL server");
      return url;
    }),
  );
}
