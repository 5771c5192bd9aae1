import { expect, it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { type ChaosSettings, runChaos } from "./chaos-run.js";

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
  it("Telegram: loses nothing, doubles nothing but the platform's window, leaves no half-written message and keeps each chat's order", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      // Telegram's run is quick: more messages, and kills twice as often, so that many land in it.
      const report = await runChaos({
        ...short,
        messagesPerChat: 40,
        killEveryMs: [500, 1_000],
        databaseUrl: database.url,
      });
      process.stderr.write(
        `chaos: ${report.kills} kills; answers shown twice: ${report.doubledInWindow.length} in the platform's window, ${report.doubledUnexplained.length} unexplained\n`,
      );
      expect(report.sent).toBe(240);
      expect(report.kills).toBeGreaterThan(0);
      // An answer shown twice passes only when Telegram's missing idempotency key explains it:
      // the process that posted the first copy was SIGKILLed within 250 ms of Telegram's answer
      // and never stored its id (docs/architecture.md, "The window that remains").
      expect(report).toMatchObject({
        lost: [],
        doubledUnexplained: [],
        toolsDoubled: [],
        halfWritten: [],
        outOfOrder: [],
      });
    } finally {
      await database.drop();
    }
  }, 240_000);

  it("Slack: events to any process, retried like Slack; loses nothing and doubles nothing at all", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const report = await runChaos({
        ...short,
        chats: 4,
        messagesPerChat: 12,
        platform: "slack",
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
