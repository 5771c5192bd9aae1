import { queryObjects } from "node:v8";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest, StreamPart } from "../../src/providers/model-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Like the SDKs: listens on the signal it is given and never removes the listener. */
class ListeningProvider extends ScriptedProvider {
  override async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    signal?.addEventListener("abort", () => undefined);
    yield* super.stream(request, signal);
  }
}

/** Live AbortSignals in the heap (queryObjects collects garbage first). */
const liveSignals = () => queryObjects(AbortSignal, { format: "count" }) as number;

describe("what a process keeps per answered message", () => {
  it("no timer or signal of a finished model call stays behind (turns of 10 minutes' deadline)", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: new ListeningProvider(() => ({ text: "noted" })) }],
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 1000 } },
    });
    const answer = async (count: number) => {
      for (let index = 0; index < count; index++) {
        await harness?.say(`message ${index}`);
        await harness?.idle();
      }
    };
    await answer(5); // warm: the queue's and the world's own timers exist now
    const before = liveSignals();
    await answer(40);
    expect(harness.channel.messages()).toHaveLength(45);
    // Each model step used to keep its deadline and combined signals (with the deadline's timer)
    // until the turn's deadline or for good: 80 more here.
    expect(liveSignals() - before).toBeLessThan(10);
  });
});
