import { resolveDatabaseUrl } from "../config/load-config.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { createCliLogger } from "./cli-logger.js";

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "Apply database migrations and exit (start does this too)",
  help: `Usage: roundtable migrate

Applies the migrations the database does not have yet and prints their names.
Running it again applies nothing. \`roundtable start\` runs the same step first.

Options:
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db; postgresql://… for PostgreSQL).`,
  options: {},
  async run(_values, context) {
    const logger = createCliLogger(context, "warn");
    const databaseUrl = resolveDatabaseUrl(context.env);
    const { migrateDatabase } = await import("../storage/migrate.js");
    const { redactDatabaseUrl } = await import("../storage/prisma/database-target.js");
    const { lockSqliteDatabase } = await import("../storage/sqlite-process-lock.js");
    // Never under a running `start` or `chat` on the same SQLite file (they migrate at start).
    const lock = lockSqliteDatabase({ databaseUrl, command: "roundtable migrate", logger });
    let applied: string[];
    try {
      ({ applied } = await migrateDatabase({ databaseUrl, logger }));
    } finally {
      lock.release();
    }
    const where = redactDatabaseUrl(databaseUrl);
    if (applied.length === 0) {
      context.stdout.write(`${where}: up to date, nothing to apply\n`);
    } else {
      const count = `${applied.length} migration${applied.length === 1 ? "" : "s"}`;
      context.stdout.write(`${where}: applied ${count}\n${applied.map((name) => `  ${name}\n`).join("")}`);
    }
    return exitCodes.ok;
  },
};
