import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness } from "./harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** SQL statements per answered message, over `count` messages after one to warm up. */
async function statementsPerMessage(databaseUrl: string | undefined, count: number): Promise<number> {
  const harness: Harness = await createHarness({
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    agents: [{ name: "alice", provider: new ScriptedProvider(() => ({ text: "Noted." })) }],
    world: { defaultAgent: "alice" },
  });
  cleanups.push(() => harness.close());
  const answered = async (n: number) =>
    harness.waitFor(() => harness.channel.messages().filter((message) => message.author === "alice").length >= n);
  await harness.say("hello");
  await answered(1);
  await harness.idle();
  const before = harness.statementCount();
  for (let index = 0; index < count; index++) {
    await harness.say(`message ${index}`);
    await answered(index + 2);
    await harness.idle();
  }
  return (harness.statementCount() - before) / count;
}

// docs/performance.md, "Fewer round trips a message": what an answered message costs in
// statements, so that a change adding one shows. Measured: SQLite 34, PostgreSQL 26.4 to 26.6
// (graphile-worker's batched completions vary a little with timing). Before this round they
// were 36 and 33.4: a turn's first step, run by the job that created the turn, does not look
// for a draft an earlier run left (there was none), and routing reads the turn and the agent's
// parked turns at once (both databases); on PostgreSQL, combined-statements.ts and the queue's
// hand-over claiming the next job's row in its finish.
describe("statements per answered message (SQLite)", () => {
  it("stays within its budget: 34", async () => {
    expect(await statementsPerMessage(undefined, 5)).toBeLessThanOrEqual(34);
  });
});

describePostgres("statements per answered message (PostgreSQL)", (serverUrl) => {
  it("stays within its budget: 27", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    expect(await statementsPerMessage(database.url, 5)).toBeLessThanOrEqual(27);
  });
});
