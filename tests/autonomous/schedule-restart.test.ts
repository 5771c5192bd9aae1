import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, openTestStore, temporaryDatabaseUrl } from "../world/harness.js";
import { startScheduleProcess } from "./schedule-process.js";

const opsKey = "console:main:ops:";

function schedule(missed: "once" | "skip", cron = "* * * * *") {
  return {
    name: "standup",
    world: "main",
    chat: { platform: "console", id: "ops" },
    agent: "bob",
    cron,
    prompt: "Summarise.",
    missed,
  };
}

/** A process of the service, in this test's process: its clock set to `at`. */
async function service(databaseUrl: string, at: string, missed: "once" | "skip", cron?: string) {
  let now = Date.parse(at);
  const bob = new ScriptedProvider(() => ({ text: "summary" }));
  const harness = await createHarness({
    databaseUrl,
    keepDatabase: true,
    agents: [{ name: "bob", provider: bob }],
    worldClock: () => new Date(now),
    autonomous: { schedules: [schedule(missed, cron)] },
  });
  await harness.idle();
  return {
    harness,
    bob,
    async tickAt(time: string) {
      now = Date.parse(time);
      await harness.roundtable.scheduler.tick();
      await harness.idle();
    },
  };
}

async function lines(databaseUrl: string) {
  const { store, close } = await openTestStore(databaseUrl);
  const messages = await store.listMessages(opsKey);
  await close();
  return messages.map(
    (message) => `${message.author.kind}: ${message.author.kind === "system" ? message.author.name : message.text}`,
  );
}

describe("schedules across downtime and restarts", () => {
  it("missed: once runs the latest missed occurrence once after downtime; a later restart runs it no more", async () => {
    const url = temporaryDatabaseUrl();
    const first = await service(url, "2026-06-01T09:00:30Z", "once");
    await first.tickAt("2026-06-01T09:01:02Z");
    await first.harness.close();
    // Down from 09:01 to 09:30:20: 29 occurrences missed; the latest one runs, once.
    const second = await service(url, "2026-06-01T09:30:20Z", "once");
    await second.tickAt("2026-06-01T09:30:25Z");
    expect(second.bob.requests).toHaveLength(1);
    await second.harness.close();
    const third = await service(url, "2026-06-01T09:30:50Z", "once");
    expect(third.bob.requests).toHaveLength(0);
    await third.harness.close();
    expect(await lines(url)).toEqual(["system: ⏰ standup", "agent: summary", "system: ⏰ standup", "agent: summary"]);
    const { store, close } = await openTestStore(url);
    const runs = await store.listAutonomousRuns({ source: "schedule", name: "standup" });
    expect(runs.map((run) => run.occurrence).sort()).toEqual(["2026-06-01T09:01:00.000Z", "2026-06-01T09:30:00.000Z"]);
    await close();
  });

  it("missed: skip runs none of the missed occurrences, then the next due one; once does not catch up past 24 h", async () => {
    const url = temporaryDatabaseUrl();
    const first = await service(url, "2026-06-01T09:00:30Z", "skip");
    await first.tickAt("2026-06-01T09:01:02Z");
    await first.harness.close();
    const second = await service(url, "2026-06-01T09:30:20Z", "skip");
    expect(second.bob.requests).toHaveLength(0);
    await second.tickAt("2026-06-01T09:31:00Z");
    expect(second.bob.requests).toHaveLength(1);
    await second.harness.close();
    // Monthly on the 1st at 09:00: on July 3rd the latest occurrence is 49 h old.
    const late = await service(url, "2026-07-03T10:00:20Z", "once", "0 9 1 * *");
    expect(late.bob.requests).toHaveLength(0);
    await late.harness.close();
    expect(await lines(url)).toEqual(["system: ⏰ standup", "agent: summary", "system: ⏰ standup", "agent: summary"]);
  });

  it("a process without the schedule's platform (roundtable chat: the console alone) runs none of its occurrences; one with it does", async () => {
    // Before, `roundtable chat` on the service's config ran a Telegram schedule too: the model
    // was called and charged, the answer stayed undelivered (no Telegram channel there), and
    // the occurrence was spent, so the service never posted it.
    const url = temporaryDatabaseUrl();
    const telegram = { ...schedule("once"), chat: { platform: "telegram", id: "-1001" } };
    const processOn = async (platform: "console" | "telegram", at: string) => {
      let now = Date.parse(at);
      const bob = new ScriptedProvider(() => ({ text: "summary" }));
      const harness = await createHarness({
        databaseUrl: url,
        keepDatabase: true,
        platform,
        agents: [{ name: "bob", provider: bob }],
        worldClock: () => new Date(now),
        channelsConfig: { telegram: { chats: { "-1001": "main" } } },
        autonomous: { schedules: [telegram] },
      });
      return {
        harness,
        bob,
        async tickAt(time: string) {
          now = Date.parse(time);
          await harness.roundtable.scheduler.tick();
          await harness.idle();
        },
      };
    };
    const chat = await processOn("console", "2026-06-01T09:00:30Z");
    await chat.tickAt("2026-06-01T09:01:02Z");
    expect(chat.bob.requests).toHaveLength(0);
    expect(await chat.harness.store.listAutonomousRuns({})).toEqual([]);
    await chat.harness.close();

    const service = await processOn("telegram", "2026-06-01T09:01:30Z");
    await service.tickAt("2026-06-01T09:02:01Z");
    expect(service.bob.requests).toHaveLength(1);
    const runs = await service.harness.store.listAutonomousRuns({});
    expect(runs.map((run) => [run.chatKey, run.occurrence])).toEqual([
      ["telegram::-1001:", "2026-06-01T09:02:00.000Z"],
    ]);
    await service.harness.close();
  });

  it("SIGKILL while a scheduled run waits for its model: the next process resumes it, answered once, and runs the occurrence no second time", async () => {
    const url = `file:${path.join(mkdtempSync(path.join(tmpdir(), "rt-schedule-")), "roundtable.db")}`;
    const first = startScheduleProcess("hang", url, "2026-06-01T09:00:30Z");
    await first.waitFor(/^READY$/);
    await first.send("tick 2026-06-01T09:01:01Z", /^TICKED$/);
    await first.waitFor(/^IN_PROVIDER$/);
    await first.kill();

    const second = startScheduleProcess("answer", url, "2026-06-01T09:01:20Z");
    await second.waitFor(/^READY$/);
    await second.send("tick 2026-06-01T09:01:30Z", /^TICKED$/);
    const stopped = await second.send("stop", /^STOPPED /);
    expect(stopped, second.stderr()).toBe("STOPPED 1");
    expect(await lines(url)).toEqual(["system: ⏰ standup", "agent: summary for ⏰ standup: Summarise."]);
  }, 120_000);
});
