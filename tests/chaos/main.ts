/**
 * `npm run chaos [-- URL] [--sqlite] [--processes N] [--chats N] [--kills N] [--platform telegram|slack] [--logs DIR]`:
 * the long chaos run. Telegram (default): 20 group chats on the Telegram fake, each person
 * writing bursts of 1 to 3 messages back to back to alice or bob (one burst in five ends with a
 * tool request, approved at once), a model that answers the earliest question its request shows
 * open, and a SIGKILL every 2 to 8 seconds until `--kills` (default 40) were made; on a fresh
 * database of the PostgreSQL server at URL (default $ROUNDTABLE_TEST_POSTGRES_URL) with two
 * processes, or with `--sqlite` on a fresh SQLite file with one. Slack: three processes, 300
 * messages, a kill every 0.5 to 1.5 s (HTTP events to any process). Prints the report; exits 1
 * when anything was lost, a tool ran twice or not at all, a message was left half-written, a
 * chat's order broke, an answer was written by another message's turn, a chat waited over 10 s
 * after a restart, or an answer showed twice other than through Telegram's window (its sender
 * killed within 250 ms of Telegram's answer and its id never stored; Slack has no window). With
 * `--logs DIR`, each process's log and the harness's record are kept in DIR.
 *
 * `--faults LIST` (comma-separated, default `kill`; `mixed` = every database and platform fault
 * with kills; see chaos-faults.ts): the faults made instead of kills only, one each pause in
 * turn, `--kills` then counting all of them. `pg-cut` puts a TCP proxy of the run's own before
 * PostgreSQL; `pg-restart` needs `--pg-data DIR` (the server's data directory, for `pg_ctl`);
 * `sqlite-lock` holds the SQLite file locked; `telegram-429`, `telegram-5xx` make the Telegram
 * fake refuse posts; `model-cut`, `model-529` make the model fake break off (not in `mixed`:
 * turn them on by name). A table by fault kind is printed (lost, doubled, order, the longest
 * wait after a fault, `/readyz` 503s seen); a process that exits by itself fails the run.
 *
 * `--keep-database` leaves the run's database in place (its URL is printed) for a look afterwards.
 *
 * `--autonomous` (Telegram): a schedule on `* * * * *` and a trigger, each in a chat of its own,
 * signed deliveries POSTed every ~2 s (one in three repeating an accepted id); a table judges
 * every minute due and every accepted delivery: run once, shown once, answered once.
 *
 * `--route dm` (Telegram): `approvals.route: dm`, every card in one approver's private chat
 * (who pressed Start), approved there as soon as it shows; the group gets the "asked privately" line.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { faultKinds, type FaultKind, faultTable } from "./chaos-faults.js";
import { autonomousFailures, autonomousTable } from "./autonomous-chaos.js";
import { type ChaosSettings, runChaos } from "./chaos-run.js";

/** `mixed`: kills and every database and platform fault (the model's are chosen by name). */
const mixedFaults: FaultKind[] = ["kill", "pg-cut", "pg-restart", "sqlite-lock", "telegram-429", "telegram-5xx"];

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      logs: { type: "string" },
      "log-level": { type: "string" },
      platform: { type: "string" },
      chats: { type: "string" },
      kills: { type: "string" },
      processes: { type: "string" },
      sqlite: { type: "boolean" },
      faults: { type: "string" },
      "pg-data": { type: "string" },
      autonomous: { type: "boolean" },
      "keep-database": { type: "boolean" },
      route: { type: "string" },
    },
  });
  const platform = values.platform ?? "telegram";
  if (platform !== "telegram" && platform !== "slack") {
    process.stderr.write(`chaos: --platform must be telegram or slack, not ${platform}\n`);
    return 2;
  }
  if (values.route !== undefined && (values.route !== "dm" || platform !== "telegram")) {
    process.stderr.write("chaos: --route takes dm, on Telegram only\n");
    return 2;
  }
  const faults =
    values.faults === undefined ? undefined : values.faults === "mixed" ? mixedFaults : values.faults.split(",");
  const unknown = faults?.filter((kind) => !(faultKinds as readonly string[]).includes(kind)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(`chaos: unknown fault kinds ${unknown.join(", ")} (known: ${faultKinds.join(", ")}, mixed)\n`);
    return 2;
  }
  if (values.logs !== undefined) await mkdir(values.logs, { recursive: true });
  const telegram = platform === "telegram";
  const settings: Omit<ChaosSettings, "databaseUrl" | "processes"> = {
    platform,
    chats: values.chats === undefined ? 20 : Number(values.chats),
    messagesPerChat: 15,
    ...(telegram
      ? { toolEvery: 5, killEveryMs: [2_000, 8_000], pauseFromReady: true, untilKills: Number(values.kills ?? 40) }
      : { toolEvery: 3, killEveryMs: [500, 1_500] }),
    windowMs: 250,
    ...(values.logs === undefined ? {} : { logDirectory: values.logs }),
    ...(values["log-level"] === undefined ? {} : { logLevel: values["log-level"] }),
    log: (line) => process.stderr.write(`chaos: ${line}\n`),
    ...(faults === undefined ? {} : { faults: faults as FaultKind[] }),
    ...(values["pg-data"] === undefined ? {} : { postgresData: values["pg-data"] }),
    ...(values.autonomous ? { autonomous: true } : {}),
    ...(values.route === "dm" ? { approvalRoute: "dm" as const } : {}),
  };
  const database = values.sqlite ? sqliteDatabase() : await postgresDatabase(positionals[0]);
  if (!database) {
    process.stderr.write(
      "chaos: needs a PostgreSQL server URL (argument or ROUNDTABLE_TEST_POSTGRES_URL) or --sqlite\n",
    );
    return 2;
  }
  try {
    const report = await runChaos({
      ...settings,
      databaseUrl: database.url,
      processes: values.processes === undefined ? (values.sqlite ? 1 : telegram ? 2 : 3) : Number(values.processes),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `answers shown twice: ${report.doubled.length} (${report.doubledInWindow.length} in the platform's window, ${report.doubledUnexplained.length} unexplained) after ${report.kills} kills\n`,
    );
    process.stdout.write(
      `tool runs: ${report.toolRuns}; longest wait after a restart: ${report.maxWaitAfterRestartMs} ms\n`,
    );
    process.stdout.write(
      `faults: ${report.faults.length} (${report.kills} kills); processes that exited by themselves: ${report.unexpectedExits}\n`,
    );
    if (report.faultRows.length > 0) process.stdout.write(`${faultTable(report.faultRows)}\n`);
    if (report.autonomous) process.stdout.write(`${autonomousTable(report.autonomous)}\n`);
    const failures =
      report.lost.length +
      report.doubledUnexplained.length +
      report.toolsDoubled.length +
      report.toolsLost.length +
      report.halfWritten.length +
      report.outOfOrder.length +
      report.wrongTurn.length +
      report.slowAfterRestart.length +
      report.unexpectedExits +
      (report.autonomous ? autonomousFailures(report.autonomous) : 0);
    return failures === 0 ? 0 : 1;
  } finally {
    if (values["keep-database"]) process.stderr.write(`chaos: database kept: ${database.url}\n`);
    else await database.drop();
  }
}

/** A fresh SQLite file in a directory of its own. */
function sqliteDatabase(): { url: string; drop(): Promise<void> } {
  const directory = mkdtempSync(path.join(tmpdir(), "roundtable-chaos-db-"));
  return {
    url: `file:${path.join(directory, "roundtable.db")}`,
    drop: () => rm(directory, { recursive: true, force: true }),
  };
}

/** A fresh database on the PostgreSQL server at `serverUrl` (default $ROUNDTABLE_TEST_POSTGRES_URL). */
async function postgresDatabase(serverUrl = process.env.ROUNDTABLE_TEST_POSTGRES_URL) {
  if (!serverUrl) return undefined;
  const name = `roundtable_chaos_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined),
  };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
