import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { runChaos } from "./chaos-run.js";
import { faultTable } from "./chaos-faults.js";
import { describeTelegramRun, expectFaultRunSound, expectTelegramRunSound, telegramShort } from "./telegram-short.js";

it("chaos on SQLite, one process killed and started again: bursts to alice and bob; nothing lost or doubled but the platform's window, each chat in order, every answer by its own turn", async () => {
  const directory = mkdtempSync(path.join(tmpdir(), "roundtable-chaos-sqlite-"));
  try {
    const report = await runChaos({
      ...telegramShort,
      processes: 1,
      databaseUrl: `file:${path.join(directory, "roundtable.db")}`,
    });
    process.stderr.write(`chaos: SQLite, ${describeTelegramRun(report)}\n`);
    expectTelegramRunSound(report);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 120_000);

it("chaos on SQLite with the file held locked by another process, Telegram 502s and a kill: nothing lost, doubled or out of order; the process never exits by itself", async () => {
  const directory = mkdtempSync(path.join(tmpdir(), "roundtable-chaos-sqlite-"));
  try {
    const report = await runChaos({
      ...telegramShort,
      processes: 1,
      untilKills: 3,
      faults: ["sqlite-lock", "telegram-5xx", "kill"],
      databaseUrl: `file:${path.join(directory, "roundtable.db")}`,
    });
    process.stderr.write(`chaos: SQLite, ${describeTelegramRun(report)}\n${faultTable(report.faultRows)}\n`);
    expectFaultRunSound(report, 3);
    expect(report.unexpectedExits).toBe(0);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 180_000);
