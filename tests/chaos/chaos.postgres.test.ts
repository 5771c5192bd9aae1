import { mkdir } from "node:fs/promises";
import { expect, it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { type ChaosSettings, runChaos } from "./chaos-run.js";
import { faultTable } from "./chaos-faults.js";
import { describeTelegramRun, expectFaultRunSound, expectTelegramRunSound, telegramShort } from "./telegram-short.js";

const short: Omit<ChaosSettings, "databaseUrl"> = {
  processes: 2,
  chats: 6,
  messagesPerChat: 20,
  toolEvery: 3,
  // Kills soon and often enough that many land while chats still talk.
  killEveryMs: [1_000, 2_000],
  windowMs: 250,
  log: (line) => process.stderr.write(`chaos: ${line}\n`),
};

describePostgres("chaos: two processes on one PostgreSQL, random SIGKILLs", (serverUrl) => {
  it("Telegram, two processes: bursts to alice and bob; nothing lost or doubled but the platform's window, each chat in order, every answer by its own turn", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const report = await runChaos({ ...telegramShort, processes: 2, databaseUrl: database.url });
      process.stderr.write(`chaos: ${describeTelegramRun(report)}\n`);
      expectTelegramRunSound(report);
    } finally {
      await database.drop();
    }
  }, 240_000);

  it("Telegram, two processes, the database going away: connections cut and refused, a 429 and 502s from Telegram, and a kill; nothing lost, doubled or out of order", async () => {
    const database = await createPostgresDatabase(serverUrl());
    const logs = process.env.ROUNDTABLE_CHAOS_LOGS || undefined;
    if (logs !== undefined) await mkdir(logs, { recursive: true });
    try {
      const report = await runChaos({
        ...telegramShort,
        processes: 2,
        untilKills: 4,
        faults: ["pg-cut", "telegram-429", "kill", "telegram-5xx"],
        databaseUrl: database.url,
        // A failure here is rare and timing-bound: ROUNDTABLE_CHAOS_LOGS=DIR keeps each process's
        // log (debug) and the harness's record in DIR, and the run's database, for a look afterwards.
        ...(logs === undefined ? {} : { logDirectory: logs, logLevel: "debug" }),
      });
      process.stderr.write(`chaos: ${describeTelegramRun(report)}\n${faultTable(report.faultRows)}\n`);
      expectFaultRunSound(report, 4);
    } finally {
      if (logs !== undefined) process.stderr.write(`chaos: database kept: ${database.url}\n`);
      else await database.drop();
    }
  }, 300_000);

  it("Slack: events to any process, retried like Slack; loses nothing and doubles nothing at all", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const report = await runChaos({
        ...short,
        chats: 4,
        messagesPerChat: 12,
        platform: "slack",
        // As in the Telegram run: the pause before a kill counts from when both processes are
        // ready. Else, where a start takes longer than the pause (a busy machine), both are down
        // most of the time and a press can use up all of Slack's retries on dead ports.
        pauseFromReady: true,
        killEveryMs: [300, 1_000],
        databaseUrl: database.url,
      });
      process.stderr.write(`chaos: Slack, ${report.kills} kills; answers shown twice: ${report.doubled.length}\n`);
      expect(report.sent).toBe(48);
      expect(report.kills).toBeGreaterThan(0);
      // Slack posts are exactly-once (post keys and read-back): no window is allowed for.
      expect(report).toMatchObject({
        lost: [],
        doubled: [],
        toolsDoubled: [],
        halfWritten: [],
        outOfOrder: [],
      });
    } finally {
      await database.drop();
    }
  }, 300_000);
});
