import { afterEach, expect, it } from "vitest";
import { SlowProvider } from "../fakes/slow-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness } from "../world/harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describePostgres("/stop from another service process (PostgreSQL)", (serverUrl) => {
  it("the process that takes /stop ends the turn; the one streaming it notices, cuts the stream and keeps the partial answer", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    const alice = new SlowProvider();
    const running: Harness = await createHarness({
      databaseUrl: database.url,
      platform: "telegram",
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
    });
    cleanups.push(() => running.close());
    await running.say("write a long essay", { user: "ana" });
    await alice.streaming;
    // A second process on the same database, with its own queue and its own in-process interrupts.
    // It starts once the first one streams: both take work from the one queue, so a process
    // started before could have taken the model call itself.
    const other: Harness = await createHarness({
      databaseUrl: database.url,
      platform: "telegram",
      agents: [{ name: "alice", provider: new ScriptedProvider([]) }],
      world: { defaultAgent: "alice" },
    });
    cleanups.push(() => other.close());
    const [turn] = await running.store.listTurns({ chatKey: "telegram::chat-1:" });
    expect(turn?.state).toBe("running");

    expect(await other.say("/stop", { user: "ana" })).toEqual({ status: "ignored", reason: "chat command /stop" });
    await running.waitFor(() => alice.endings.length > 0, 5_000);
    expect(alice.endings).toEqual(["aborted"]);
    await running.waitFor(async () => {
      const messages = await running.store.listMessages("telegram::chat-1:");
      return messages.some((message) => message.author.kind === "agent");
    }, 5_000);
    const answer = (await running.store.listMessages("telegram::chat-1:")).find(
      (message) => message.author.kind === "agent",
    );
    expect(answer?.text).toBe("Here is the first part of a long answer\n\n(stopped by ana)");
    expect(await running.store.getTurn(turn?.id ?? "")).toMatchObject({
      state: "ended",
      endReason: "stopped",
      stoppedBy: { id: "ana", name: "ana" },
    });
    expect(alice.requests).toHaveLength(1);
  });
});
