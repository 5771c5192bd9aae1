/**
 * `npx tsx bench/job-claim.ts [--queues N] [--later K] [--due D] [--claims C]`: the CPU one
 * claim of a queue's next job costs on SQLite (`JobTable.claimNextOf`, the statement every step
 * starts with), with other queues' jobs pending: N queues with a running job and K jobs each due
 * later (a turn's deadline, a retry, a reminder), and D jobs due now in other queues. Each of C
 * idle queues gets one due job, then each is claimed. Measured on the migrated schema, then with
 * the queue's index as it was before migration 0022 (`("queue", "state")` only), in one file.
 * Prints microseconds of this process's CPU per claim; asserts nothing. Figures:
 * docs/performance.md ("The queue's claim, by queue").
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { silentLogger } from "../src/log/logger.js";
import { migrateDatabase } from "../src/storage/migrate.js";
import { createDatabaseClient } from "../src/storage/prisma/database-client.js";
import { parseDatabaseUrl } from "../src/storage/prisma/database-target.js";
import { JobTable } from "../src/storage/prisma/job-table.js";
import { rawSqlOf } from "../src/storage/prisma/prisma-raw-sql.js";
import { sql } from "../src/storage/prisma/raw-sql.js";
import { round } from "./statistics.js";

const { values } = parseArgs({
  options: {
    queues: { type: "string", default: "1000" },
    later: { type: "string", default: "3" },
    due: { type: "string", default: "2000" },
    claims: { type: "string", default: "2000" },
  },
});
const queues = Number(values.queues);
const later = Number(values.later);
const due = Number(values.due);
const claims = Number(values.claims);

const directory = mkdtempSync(path.join(tmpdir(), "roundtable-job-claim-"));
const databaseUrl = `file:${path.join(directory, "bench.sqlite")}`;
try {
  await migrateDatabase({ databaseUrl, logger: silentLogger() });
  const db = await createDatabaseClient(parseDatabaseUrl(databaseUrl));
  const raw = rawSqlOf(db);
  const table = new JobTable(db);
  const now = new Date();
  const inAMinute = new Date(now.getTime() + 60_000);
  let key = 0;
  const add = (queue: string, runAt: Date) => table.insert({ queue, key: `job-${key++}`, payload: {}, runAt }, now);
  for (let queue = 0; queue < queues; queue++) {
    await add(`busy:${queue}`, now);
    const claimed = await table.claimNextOf(`busy:${queue}`, "other-worker", now);
    if (!claimed) throw new Error("the setup's claim found nothing");
    for (let job = 0; job < later; job++) await add(`busy:${queue}`, inAMinute);
  }
  // Due now but held: each of these queues has a running job too.
  for (let job = 0; job < due; job++) await add(`busy:${job % Math.max(1, queues)}`, now);

  const claimAll = async (round: string): Promise<number> => {
    for (let claim = 0; claim < claims; claim++) await add(`idle:${round}:${claim}`, now);
    const started = process.cpuUsage();
    for (let claim = 0; claim < claims; claim++) {
      if (!(await table.claimNextOf(`idle:${round}:${claim}`, "worker", now))) throw new Error("a claim found nothing");
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / claims;
  };
  const withIndex = await claimAll("migrated");
  await raw.execute(sql`DROP INDEX "Job_queue_state_runAt_idx"`);
  await raw.execute(sql`CREATE INDEX "Job_queue_state_idx" ON "Job"("queue", "state")`);
  const without = await claimAll("before-0022");
  await db.$disconnect();
  process.stdout.write(
    `${queues} queues with a running job and ${later} jobs due later each, ${due} held jobs due now; ${claims} claims\n` +
      `  CPU per claim, migrated schema:                 ${round(withIndex)} us\n` +
      `  CPU per claim, ("queue", "state") only (< 0022): ${round(without)} us\n`,
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
