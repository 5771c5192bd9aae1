import { afterEach, describe, expect, it } from "vitest";
import { prismaClientsCreated } from "../../src/storage/prisma/lazy-client.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";

let harnesses: Harness[] = [];
let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function make(databaseUrl: string, provider: ScriptedProvider): Promise<Harness> {
  const h = await createHarness({
    agents: [{ name: "alice", provider }],
    world: { defaultAgent: "alice" },
    databaseUrl,
  });
  harnesses.push(h);
  return h;
}

/** Resolves after `ms` of real time (the idle process's own timers run meanwhile). */
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A start on stored work and an idle process make no Prisma client; a statement that needs it
 * makes it. `idleMs`: how long the process then stays idle (its timers: PostgreSQL's liveness
 * sweep runs every 2 s).
 */
async function startAndIdle(databaseUrl: string, idleMs: number): Promise<void> {
  const first = await make(databaseUrl, new ScriptedProvider([{ text: "hello" }]));
  await first.say("hi");
  await first.idle();
  const chatKey = (await first.store.listTurns({}))[0]?.chatKey;
  await first.close();
  harnesses = harnesses.filter((h) => h !== first);

  const before = prismaClientsCreated();
  // The start: migrations checked, the store pinged, lost steps looked for in the stored
  // events, jobs left running taken back, old jobs deleted, the queue's first scan and timer
  // (on PostgreSQL: graphile-worker's jobs handed over, the liveness sweep).
  const h = await make(databaseUrl, new ScriptedProvider([]));
  await h.idle();
  if (idleMs > 0) await idleFor(idleMs);
  expect(prismaClientsCreated()).toBe(before);

  // A rare statement still goes through Prisma's client, made now, and reads what was stored.
  expect(chatKey).toBeDefined();
  const events = await h.store.listEvents(chatKey ?? "");
  expect(prismaClientsCreated()).toBe(before + 1);
  expect(events.some((event) => event.type === "message")).toBe(true);
}

// Idle memory (docs/performance.md): Prisma's client and its WebAssembly query compiler are
// megabytes of memory for good, so what a start and an idle process run goes around them.
describe("Prisma's client (SQLite)", () => {
  it("is not made by a start on stored work nor by an idle process; a statement that needs it makes it", async () => {
    await startAndIdle(temporaryDatabaseUrl(), 0);
  });
});

describePostgres("Prisma's client (PostgreSQL)", (serverUrl) => {
  it("is not made by a start on stored work nor by an idle process (two liveness sweeps); a statement that needs it makes it", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    // Two sweeps of the liveness timer (every 2 s) run while idle.
    await startAndIdle(database.url, 4_500);
  }, 30_000);
});
