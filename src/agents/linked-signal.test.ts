import { getEventListeners } from "node:events";
import { queryObjects } from "node:v8";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "./linked-signal.js";

/** Live AbortSignals in the heap (queryObjects collects garbage first). */
const liveSignals = () => queryObjects(AbortSignal, { format: "count" }) as number;

describe("linkedSignal", () => {
  it("aborts with the reason of the first source that aborts", () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkedSignal([first.signal, second.signal]);
    second.abort("stopped");
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("stopped");
    // Aborting detached it from the other source too.
    expect(getEventListeners(first.signal, "abort")).toHaveLength(0);
  });

  it("is aborted at once when a source already is", () => {
    const stopped = new AbortController();
    stopped.abort("before");
    const other = new AbortController();
    const linked = linkedSignal([stopped.signal, other.signal], 60_000);
    expect(linked.signal.reason).toBe("before");
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
  });

  it("aborts with a TimeoutError when the time runs out", async () => {
    const linked = linkedSignal([], 5);
    await new Promise<void>((resolve) => linked.signal.addEventListener("abort", () => resolve(), { once: true }));
    expect((linked.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("leaves nothing behind on a long-lived source after release: no listener, no live signal", () => {
    const process = new AbortController();
    const signalsBefore = liveSignals();
    for (let index = 0; index < 1000; index++) {
      const linked = linkedSignal([process.signal], 600_000);
      // As the SDKs do: a listener on the signal they were given, never removed.
      linked.signal.addEventListener("abort", () => undefined);
      linked.release();
    }
    expect(getEventListeners(process.signal, "abort")).toHaveLength(0);
    // AbortSignal.any + AbortSignal.timeout here keep about 2,000 signals alive.
    expect(liveSignals() - signalsBefore).toBeLessThan(10);
    linkedSignal([process.signal]).release();
    process.abort();
  });
});
