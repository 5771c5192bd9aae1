import { errorMessage } from "../../errors/roundtable-error.js";
import type { Logger } from "../../log/logger.js";
import type { ClaimedJob, JobHandler } from "../../world/work-queue.js";
import type { GraphileJobTable, HandedJob, RunningJob } from "./graphile-job-table.js";
import type { ClaimedRow, JobTable } from "./job-table.js";

/** What running one claimed step needs from its queue. */
export interface StepRunContext {
  rows: JobTable;
  graphile: GraphileJobTable;
  logger: Logger;
  clock: () => Date;
  maxAttempts: number;
  retryDelayMs: (attempt: number) => number;
  leaseMs: number;
  /** Whether an outcome that cannot be written yet is tried again (the queue has not been told to stop). */
  keepTrying: () => boolean;
}

/** How a step's finish hands its chat's queue on (`GraphileWorkQueue` keeps one per held queue). */
export interface HandOver {
  /** Whether the finish may lock the chat's next due job for this worker (not while stopping). */
  allowed(): boolean;
  /** Called just before each finish statement is sent (adds after this may not be seen by it). */
  finishing(): void;
  /** The token the next job's row is claimed with, should the finish hand one over. */
  nextToken(): string;
}

/**
 * Run a claimed step with the world's handler, renewing its lease meanwhile, and record the
 * outcome (with graphile-worker's job finished in the same statement): `done`, `failed` after
 * the last attempt, or `pending` again after our retry delay. Resolves with that delay when
 * the step will run again, or with the chat's next job when the finish handed it to this worker.
 */
export async function runClaimedStep(
  context: StepRunContext,
  claimed: { row: ClaimedRow; token: string; running: RunningJob },
  handler: JobHandler,
  handOver: HandOver,
): Promise<{ retryInMs?: number; next?: HandedJob }> {
  const { row, token, running } = claimed;
  const { graphile, clock } = context;
  const log = context.logger.child({ queue: row.queue, job: row.key, attempt: row.attempts });
  const job: ClaimedJob = {
    queue: row.queue,
    key: row.key,
    payload: row.payload,
    runAt: row.runAt,
    attempts: row.attempts,
  };
  const heartbeat = setInterval(
    () => {
      context.rows.heartbeat(row.seq, token, clock()).catch((error: unknown) => {
        log.warn({ err: error }, "work queue: renewing a job's lease failed");
      });
    },
    Math.max(1_000, Math.floor(context.leaseMs / 3)),
  );
  heartbeat.unref();
  let thrown: { error: unknown } | undefined;
  try {
    await handler(job);
  } catch (error) {
    thrown = { error };
  } finally {
    clearInterval(heartbeat);
  }
  const finish = async (lastError?: string): Promise<{ next?: HandedJob }> => {
    let next: HandedJob | undefined;
    await settle(log, context.keepTrying, async () => {
      handOver.finishing();
      const outcome = await graphile.finish(row.seq, token, clock(), running, {
        ...(lastError === undefined ? {} : { lastError }),
        handOver: handOver.allowed(),
        claimNext: { token: handOver.nextToken(), maxAttempts: context.maxAttempts },
      });
      next = outcome.next;
      return outcome.changed;
    });
    return next ? { next } : {};
  };
  if (!thrown) return finish();
  const message = errorMessage(thrown.error);
  if (row.attempts >= context.maxAttempts) {
    log.error({ err: thrown.error }, "job failed %d times; giving up on it", row.attempts);
    return finish(message);
  }
  const wait = Math.max(0, context.retryDelayMs(row.attempts));
  log.warn({ err: thrown.error, retryInMs: wait }, "job failed; it will run again");
  const runAt = new Date(clock().getTime() + wait);
  await settle(log, context.keepTrying, () =>
    graphile.retry(row.seq, token, { runAt, delayMs: wait, lastError: message }, running),
  );
  return { retryInMs: wait };
}

/**
 * Write a step's outcome. While the queue runs, a database that went away (restarted, cut,
 * unreachable) is waited for, backing off up to 2 s: the row is this process's, and nobody else
 * will take it from a live process, so giving up would leave its chat stalled. Once the queue
 * is stopping, three tries; then the task fails so that graphile-worker runs the step again
 * later (the claim takes over the row left running).
 */
async function settle(log: Logger, keepTrying: () => boolean, write: () => Promise<boolean>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await write())) log.warn("job was taken back by another worker before it finished; its outcome is dropped");
      return;
    } catch (error) {
      if (attempt >= 3 && !keepTrying()) {
        log.error({ err: error }, "could not record a job's outcome; graphile-worker will run it again");
        throw error;
      }
      if (attempt === 3) log.warn({ err: error }, "work queue: cannot record a job's outcome yet; trying until it is");
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), 2_000)));
    }
  }
}
