import { afterEach, expect, it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { openTestStore } from "../world/harness.js";
import { type ScheduleProcess, startScheduleProcess } from "./schedule-process.js";

const opsKey = "console:main:ops:";

describePostgres("a minute schedule with two processes on one PostgreSQL", (serverUrl) => {
  const running: ScheduleProcess[] = [];
  afterEach(async () => {
    for (const process_ of running.splice(0)) await process_.kill();
  });

  it("each occurrence runs once in all, whichever process sees it first", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const start = "2026-06-01T09:00:30Z";
      const one = startScheduleProcess("answer", database.url, start);
      running.push(one);
      await one.waitFor(/^READY$/);
      const two = startScheduleProcess("answer", database.url, start);
      running.push(two);
      await two.waitFor(/^READY$/);
      const times = ["2026-06-01T09:01:00Z", "2026-06-01T09:02:03Z", "2026-06-01T09:03:01Z", "2026-06-01T09:04:00Z"];
      for (const time of times) {
        // Both processes see the due time at once.
        await Promise.all([one.send(`tick ${time}`, /^TICKED$/), two.send(`tick ${time}`, /^TICKED$/)]);
      }
      const { store, close } = await openTestStore(database.url);
      try {
        const deadline = Date.now() + 30_000;
        let answers = 0;
        while (Date.now() < deadline) {
          answers = (await store.listMessages(opsKey)).filter((message) => message.author.kind === "agent").length;
          if (answers >= times.length) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const stopped = await Promise.all([one.send("stop", /^STOPPED /), two.send("stop", /^STOPPED /)]);
        running.splice(0);
        const requests = stopped.map((line) => Number(line.split(" ")[1]));
        expect(requests.reduce((sum, count) => sum + count, 0)).toBe(times.length);
        const messages = await store.listMessages(opsKey);
        expect(messages.filter((message) => message.author.kind === "system")).toHaveLength(times.length);
        expect(messages.filter((message) => message.author.kind === "agent")).toHaveLength(times.length);
        const runs = await store.listAutonomousRuns({ source: "schedule", name: "standup" });
        expect(runs.map((run) => run.occurrence).sort()).toEqual(times.map((time) => `${time.slice(0, 17)}00.000Z`));
      } finally {
        await close();
      }
    } finally {
      await database.drop();
    }
  }, 120_000);
});
