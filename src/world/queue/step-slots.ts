import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The slots of `queue.concurrency`: how many stored steps of this process use the CPU or the
 * database at once (docs/performance.md, "Real model speeds"). A step takes a slot when it
 * starts and gives it back while it only waits ({@link withoutSlot}: a model's stream, a tool's
 * process, an edit interval, a platform's retry time), so a waiting turn costs memory and no
 * slot; it takes a slot again before it goes on. The queue itself runs up to `queue.inFlight`
 * steps at once (each still holding its chat's queue: per-chat order and crash recovery are the
 * queue's, unchanged).
 *
 * A freed slot goes first to a step going on after a wait (a stream's end: the answer is
 * written, its turn nearly done), then to a step of work under way ({@link SlotRank} `"next"`:
 * a delivery, a turn's next step, a tool's run), then to a step that starts new work
 * (`"start"`: routing a message, a schedule's run), each in the order they came. So under load
 * the answers under way are finished before more are begun, as the queue itself orders a chat's
 * jobs (src/world/jobs.ts, `jobPriority`); new work still starts whenever no slot is wanted to
 * finish, and every wait ahead of it is a step nearer its end.
 */
export class StepSlots {
  private free: number;
  /** Who waits for a slot, first served first: going on after a wait, then "next", then "start". */
  private readonly waiters: Record<WaitRank, (() => void)[]> = { resume: [], next: [], start: [] };
  /** Steps under way (holding a slot or waiting without one), for the metrics and tests. */
  private steps = 0;
  private waitingSteps = 0;

  constructor(readonly size: number) {
    this.free = Math.max(1, size);
  }

  /** Runs `step` holding a slot (taken first, when one is free); waits inside give it back. */
  async run<T>(step: () => Promise<T>, rank: SlotRank = "next"): Promise<T> {
    await this.take(rank);
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
  take(rank: WaitRank): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters[rank].push(resolve));
  }

  /** @internal */
  give(): void {
    const { resume, next: going, start } = this.waiters;
    const next = resume.shift() ?? going.shift() ?? start.shift();
    if (next) next();
    else this.free++;
  }

  /** @internal */
  noteWaiting(delta: number): void {
    this.waitingSteps += delta;
  }
}

/**
 * What a step begins, for the order slots are handed out in: `"next"`, work under way (a
 * delivery, a turn's next step, a tool's run, a decided approval); `"start"`, new work (routing a
 * message, which starts turns; a schedule's or trigger's run).
 */
export type SlotRank = "next" | "start";

/** A slot's waiters: a step going on after a wait (`"resume"`) comes before both ranks. */
type WaitRank = "resume" | SlotRank;

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
  beginWait(holder);
  try {
    return await slotStorage.exit(wait);
  } finally {
    await endWait(holder);
  }
}

/** A wait of the step begins: the first gives the slot back. */
function beginWait(holder: Holder): void {
  holder.waits++;
  if (holder.waits > 1) return;
  holder.slots.noteWaiting(1);
  if (holder.held) {
    holder.held = false;
    holder.slots.give();
  }
}

/** A wait of the step ends: the last takes the slot again (one take however many end together). */
async function endWait(holder: Holder): Promise<void> {
  holder.waits--;
  if (holder.waits > 0) return;
  holder.slots.noteWaiting(-1);
  if (holder.done || holder.held) return;
  holder.retaking ??= holder.slots.take("resume").then(() => {
    holder.retaking = undefined;
    // A step that ended meanwhile, or began another wait, has no use for it.
    if (holder.done || holder.waits > 0) holder.slots.give();
    else holder.held = true;
  });
  await holder.retaking;
}

/**
 * A model's stream read without the step's slot: the slot is given back when reading begins and
 * taken again when the stream is over, or before a part for which `needsSlot` says the step
 * will use the database (then given back again when reading goes on). What the step does with
 * the other parts (show a piece of text) runs without it: per part, a hand-over of the slot cost
 * more than the part (docs/performance.md, "Real model speeds").
 */
export async function* slotFreeStream<T>(
  stream: AsyncIterable<T>,
  needsSlot: (part: T) => boolean = () => true,
): AsyncGenerator<T> {
  const holder = slotStorage.getStore();
  if (!holder || holder.done) {
    yield* stream;
    return;
  }
  const iterator = stream[Symbol.asyncIterator]();
  let waiting = false;
  try {
    for (;;) {
      if (!waiting) {
        beginWait(holder);
        waiting = true;
      }
      const next = await iterator.next();
      if (next.done) return;
      if (needsSlot(next.value)) {
        waiting = false;
        await endWait(holder);
      }
      yield next.value;
    }
  } finally {
    try {
      await iterator.return?.();
    } finally {
      if (waiting) await endWait(holder);
    }
  }
}

/** How many steps the stored queue runs at once: `queue.inFlight`, never fewer than the slots. */
export function inFlightOf(queue: { concurrency: number; inFlight: number }): number {
  return Math.max(queue.inFlight, queue.concurrency);
}
