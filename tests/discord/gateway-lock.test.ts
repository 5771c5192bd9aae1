import { afterEach, describe, expect, it } from "vitest";
import { DiscordAdapter } from "../../channels/discord/adapter.js";
import type { SingletonLease, SingletonLock } from "../../src/world/queue/singleton-lock.js";
import { capturingLogger, type DiscordWorld, discordWorld, mainToken, RecordingSink, waitFor } from "./helpers.js";

/** One holder at a time, in memory, as the PostgreSQL advisory lock behaves across processes. */
class MemoryLock implements SingletonLock {
  private holder: AbortController | undefined;

  async acquire(_name: string, signal: AbortSignal): Promise<SingletonLease> {
    while (this.holder) {
      signal.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lost = new AbortController();
    this.holder = lost;
    return {
      lost: lost.signal,
      release: async () => {
        if (this.holder === lost) this.holder = undefined;
      },
    };
  }
}

let world: DiscordWorld | undefined;
const adapters: DiscordAdapter[] = [];
afterEach(async () => {
  for (const adapter of adapters.splice(0)) await adapter.stop();
  await world?.fake.close();
  world = undefined;
});

describe("one gateway per bot across processes", () => {
  it("only the lock holder connects; the other takes over when the holder stops", async () => {
    world = await discordWorld();
    const lock = new MemoryLock();
    const sinks = [new RecordingSink(), new RecordingSink()];
    for (const sink of sinks) {
      const { logger } = capturingLogger();
      const adapter = new DiscordAdapter({ token: mainToken, apiUrl: world.fake.apiUrl, logger, gatewayLock: lock });
      adapters.push(adapter);
      await adapter.start(sink);
    }
    const fake = world.fake;
    // The holder connects; the other waits and counts as ready (it can post).
    await waitFor(() => fake.gateway.identifies.length === 1 && adapters.every((adapter) => adapter.isConnected()));
    expect(fake.gateway.identifies).toHaveLength(1);
    fake.userMessage({ channelId: world.general.id, author: world.ana, content: "to the holder" });
    await waitFor(() => sinks[0]?.accepted.length === 1);

    // The holder goes away (its process stops): the other process takes the gateway over.
    await adapters[0]?.stop();
    await waitFor(() => fake.gateway.identifies.length === 2, 10_000);
    await waitFor(() => fake.gateway.isConnected(), 10_000);
    fake.userMessage({ channelId: world.general.id, author: world.ana, content: "to the new holder" });
    await waitFor(() => sinks[1]?.accepted.length === 1, 10_000);
    expect(sinks[1]?.accepted[0]?.text).toBe("to the new holder");
    expect(sinks[0]?.accepted).toHaveLength(1);
  });
});
