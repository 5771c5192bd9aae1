import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The slots of `queue.concurrency`: how many stored steps of this process use the CPU or the
 * database at once (docs/performance.md, "Real model speeds"). A step takes a slot when it
 * starts and gives it back while it only waits ({@link withoutSlot}: a model's stream, a tool's
 * process, an edit interval, a platform's retry time), so a waiting turn costs memory and no
 * slot; it takes a slot again before it goes on. The queue itself runs up to `queue.inFlight`
 * steps at once (each still holding its chat's queue: per-chat order and crash recovery are the
 * queue's, unchanged).
 */
export class StepSlots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  /** Steps under way (holding a slot or waiting without one), for the metrics and tests. */
  private steps = 0;
  private waitingSteps = 0;

  constructor(readonly size: number) {
    this.free = Math.max(1, size);
  }

  /** Runs `step` holding a slot (taken first, when one is free); waits inside give it back. */
  async run<T>(step: () => Promise<T>): Promise<T> {
    await this.take();
    const holder: Holder = { slots: this, held: true, waits: 0, done: false, retaking: undefined };
    this.steps++;
    try {
      return await slotStorage.run(holder, step);
    } finally {
      holder.done = true;
      this.steps--;
      if (holder.held) {
        holder.held = false;
        this.give();
      }
    }
  }

  /** Steps under way, how many of them wait without a slot, and the slots in use now. */
  usage(): { steps: number; waiting: number; busy: number } {
    return { steps: this.steps, waiting: this.waitingSteps, busy: this.size - this.free };
  }

  /** @internal */
  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** @internal */
  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }

  /** @internal */
  noteWaiting(delta: number): void {
    this.waitingSteps += delta;
  }
}

interface Holder {
  slots: StepSlots;
  held: boolean;
  /** Waits of this step under way now (a stream's edits may wait while its model does). */
  waits: number;
  /** The step is over: a wait left behind by it (a late edit) takes no slot. */
  done: boolean;
  retaking: Promise<void> | undefined;
}

const slotStorage = new AsyncLocalStorage<Holder>();

/**
 * Awaits `wait` without the current step's slot (nothing happens outside a step): the slot is
 * given back first and taken again before the step goes on. `wait` must use neither the
 * database nor much CPU: it waits for a model, a process, a timer or a platform.
 */
export async function withoutSlot<T>(wait: () => Promise<T>): Promise<T> {
  const holder = slotStorage.getStore();
  if (!holder || holder.done) return wait();
  holder.waits++;
  if (holder.waits === 1) {
    holder.slots.noteWaiting(1);
    if (holder.held) {
      holder.held = false;
      holder.slots.give();
    }
  }
  try {
    return await slotStorage.exit(wait);
  } finally {
    holder.waits--;
    if (holder.waits === 0) {
      holder.slots.noteWaiting(-1);
      await retake(holder);
    }
  }
}

/** The step takes its slot again (one take however many waits end together). */
async function retake(holder: Holder): Promise<void> {
  if (holder.done || holder.held) return;
  holder.retaking ??= holder.slots.take().then(() => {
    holder.retaking = undefined;
    // A step that ended meanwhile, or began another wait, has no use for it.
    if (holder.done || holder.waits > 0) holder.slots.give();
    else holder.held = true;
  });
  await holder.retaking;
}

/**
 * A model's stream read without a slot between its parts: each part is awaited through
 * {@link withoutSlot}, and what the step does with a part runs in the step as before.
 */
export async function* slotFreeStream<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  const read = () => iterator.next();
  try {
    for (;;) {
      const next = await withoutSlot(read);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/** How many steps the stored queue runs at once: `queue.inFlight`, never fewer than the slots. */
export function inFlightOf(queue: { concurrency: number; inFlight: number }): number {
  return Math.max(queue.inFlight, queue.concurrency);
}
