import { afterEach, describe, expect, it } from "vitest";
import { prismaClientsCreated } from "../../src/storage/prisma/lazy-client.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
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

// Idle memory (docs/performance.md): Prisma's client and its WebAssembly query compiler are
// megabytes of memory for good, so what a start and an idle process run goes around them.
describe("Prisma's client", () => {
  it("is not made by a start on stored work nor by an idle process; a statement that needs it makes it", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const first = await make(databaseUrl, new ScriptedProvider([{ text: "hello" }]));
    await first.say("hi");
    await first.idle();
    const chatKey = (await first.store.listTurns({}))[0]?.chatKey;
    await first.close();

    const before = prismaClientsCreated();
    // The start: migrations checked, the store pinged, lost steps looked for in the stored
    // events, jobs left running taken back, old jobs deleted, the queue's first scan and timer.
    const h = await make(databaseUrl, new ScriptedProvider([]));
    await h.idle();
    expect(prismaClientsCreated()).toBe(before);

    // A rare statement still goes through Prisma's client, made now, and reads what was stored.
    expect(chatKey).toBeDefined();
    const events = await h.store.listEvents(chatKey ?? "");
    expect(prismaClientsCreated()).toBe(before + 1);
    expect(events.some((event) => event.type === "message")).toBe(true);
  });
});
