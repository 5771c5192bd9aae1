import { expect, it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { runChaos } from "./chaos-run.js";

describePostgres("chaos: two processes on one PostgreSQL, random SIGKILLs", (serverUrl) => {
  it("loses nothing, runs no tool twice, leaves no half-written message and keeps each chat's order", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const report = await runChaos({
        databaseUrl: database.url,
        processes: 2,
        chats: 6,
        // Enough messages and kills soon enough that a kill lands while chats still talk (48
        // messages with a kill every 3 to 6 s were often all answered before the first kill).
        messagesPerChat: 15,
        toolEvery: 3,
        killEveryMs: [1_500, 3_000],
        windowMs: 250,
        log: (line) => process.stderr.write(`chaos: ${line}\n`),
      });
      expect(report.sent).toBe(90);
      expect(report.kills).toBeGreaterThan(0);
      expect(report).toMatchObject({ lost: [], toolsDoubled: [], halfWritten: [], outOfOrder: [] });
      // Not asserted: a SIGKILL between Telegram's answer to sendMessage and the id being stored
      // (one round trip and one database write; Telegram has no idempotency key) makes the re-run
      // post that answer again. Every post now has only that window (docs/architecture.md,
      // "The window that remains"), but it cannot be closed, so asserting zero would flake.
      // `npm run chaos` does count it as a failure.
      if (report.doubled.length > 0)
        process.stderr.write(`chaos: answers posted twice: ${report.doubled.join(", ")}\n`);
    } finally {
      await database.drop();
    }
  }, 240_000);
});
