import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "vitest";
import { runChaos } from "./chaos-run.js";
import { describeTelegramRun, expectTelegramRunSound, telegramShort } from "./telegram-short.js";

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
