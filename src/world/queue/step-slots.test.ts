import { describe, expect, it } from "vitest";
import { inFlightOf, slotFreeStream, StepSlots, withoutSlot } from "./step-slots.js";

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("StepSlots", () => {
  it("runs no more steps at once than its size while they use a slot", async () => {
    const slots = new StepSlots(2);
    const held = gate();
    let running = 0;
    let most = 0;
    const steps = Array.from({ length: 5 }, () =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await held.promise;
        running--;
      }),
    );
    await turn();
    expect(slots.usage()).toMatchObject({ steps: 2, busy: 2 });
    held.open();
    await Promise.all(steps);
    expect(most).toBe(2);
    expect(slots.usage()).toEqual({ steps: 0, waiting: 0, busy: 0 });
  });

  it("gives the slot back while a step waits, and takes one again before it goes on", async () => {
    const slots = new StepSlots(1);
    const model = gate();
    const order: string[] = [];
    const waiting = slots.run(async () => {
      order.push("a starts");
      await withoutSlot(() => model.promise);
      order.push("a goes on");
    });
    await turn();
    expect(slots.usage()).toEqual({ steps: 1, waiting: 1, busy: 0 });
    // The one slot is free: another step runs whole while the first waits.
    await slots.run(async () => {
      order.push("b runs");
    });
    model.open();
    await waiting;
    expect(order).toEqual(["a starts", "b runs", "a goes on"]);
  });

  it("a step whose wait ends while every slot is busy waits for one", async () => {
    const slots = new StepSlots(1);
    const busy = gate();
    const order: string[] = [];
    const first = slots.run(async () => {
      await withoutSlot(() => Promise.resolve());
      order.push("first goes on");
    });
    const second = slots.run(async () => {
      order.push("second holds the slot");
      await busy.promise;
    });
    await turn();
    expect(order).toEqual(["second holds the slot"]);
    busy.open();
    await Promise.all([first, second]);
    expect(order).toEqual(["second holds the slot", "first goes on"]);
  });

  it("waits that overlap in one step give back and take one slot, and a wait outside a step takes none", async () => {
    const slots = new StepSlots(1);
    await slots.run(async () => {
      await Promise.all([withoutSlot(turn), withoutSlot(turn), withoutSlot(turn)]);
      expect(slots.usage()).toEqual({ steps: 1, waiting: 0, busy: 1 });
    });
    expect(await withoutSlot(async () => 7)).toBe(7);
    expect(slots.usage()).toEqual({ steps: 0, waiting: 0, busy: 0 });
  });

  it("reads a stream part by part without the slot, and closes it when the step stops reading", async () => {
    const slots = new StepSlots(1);
    let closed = false;
    async function* parts() {
      try {
        yield 1;
        yield 2;
        yield 3;
      } finally {
        closed = true;
      }
    }
    const seen: number[] = [];
    await slots.run(async () => {
      for await (const part of slotFreeStream(parts())) {
        seen.push(part);
        if (part === 2) break;
      }
    });
    expect(seen).toEqual([1, 2]);
    expect(closed).toBe(true);
    expect(slots.usage()).toEqual({ steps: 0, waiting: 0, busy: 0 });
  });

  it("keeps the slot given back between parts, and takes it for a part that needs it and once the stream is over", async () => {
    const slots = new StepSlots(1);
    const busy: string[] = [];
    async function* parts() {
      yield "text";
      yield "text";
      yield "charge";
      yield "text";
    }
    await slots.run(async () => {
      for await (const part of slotFreeStream(parts(), (next) => next === "charge")) {
        busy.push(`${part}:${slots.usage().busy}`);
      }
      busy.push(`after:${slots.usage().busy}`);
    });
    expect(busy).toEqual(["text:0", "text:0", "charge:1", "text:0", "after:1"]);
    expect(slots.usage()).toEqual({ steps: 0, waiting: 0, busy: 0 });
  });

  it("a stream that fails takes the slot again before the step sees the failure", async () => {
    const slots = new StepSlots(1);
    async function* parts() {
      yield "text";
      throw new Error("cut");
    }
    const seen: string[] = [];
    await slots.run(async () => {
      try {
        for await (const part of slotFreeStream(parts(), () => false)) seen.push(`${part}:${slots.usage().busy}`);
      } catch (error) {
        seen.push(`${(error as Error).message}:${slots.usage().busy}`);
      }
    });
    expect(seen).toEqual(["text:0", "cut:1"]);
  });

  it("a freed slot goes to a step going on after its wait, then to finishing work, then to new work", async () => {
    const slots = new StepSlots(1);
    const busy = gate();
    const model = gate();
    const order: string[] = [];
    // A step that streams: it gives its slot back while its model answers.
    const streaming = slots.run(async () => {
      await withoutSlot(() => model.promise);
      order.push("the stream's end");
    });
    await turn();
    // The slot is taken by a long step; behind it, in this order: new work, finishing work, the stream's end.
    const holding = slots.run(() => busy.promise, "next");
    await turn();
    const routes = [1, 2].map((n) => slots.run(async () => void order.push(`route ${n}`), "start"));
    const delivery = slots.run(async () => void order.push("delivery"), "next");
    model.open();
    await turn();
    busy.open();
    await Promise.all([streaming, holding, ...routes, delivery]);
    expect(order).toEqual(["the stream's end", "delivery", "route 1", "route 2"]);
    expect(slots.usage()).toEqual({ steps: 0, waiting: 0, busy: 0 });
  });

  it("the queue runs queue.inFlight steps, never fewer than the slots", () => {
    expect(inFlightOf({ concurrency: 32, inFlight: 1000 })).toBe(1000);
    expect(inFlightOf({ concurrency: 64, inFlight: 8 })).toBe(64);
  });
});
