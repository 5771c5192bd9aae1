/**
 * Stored work. A job is `{ queue: chat key, key: step id, payload }`. Jobs of one queue run
 * one at a time: among those whose `runAt` has come, the lowest `priority` first, then in the
 * order they were added; different queues run concurrently. Delivery is at least once, so
 * every handler is idempotent by key. The embedded implementation is a table; graphile-worker
 * (named queues, job keys, priorities) fits the same port.
 */
export interface QueueJob {
  queue: string;
  /** Dedupe key: adding a job whose key exists changes nothing. */
  key: string;
  payload: unknown;
  /** Not before this time (approval expiry). Defaults to now. */
  runAt?: Date;
  /** Among the queue's due jobs, a lower one runs first (0 to 9; default 0). */
  priority?: number;
}

export interface ClaimedJob extends QueueJob {
  attempts: number;
}

export type JobHandler = (job: ClaimedJob) => Promise<void>;

export interface WorkQueue {
  /** Store a job; false when a job with this key already exists. Wakes a worker. */
  add(job: QueueJob): Promise<boolean>;
  /** Take abandoned jobs back and begin running jobs with `handler`. */
  start(handler: JobHandler): Promise<void>;
  /** Take no new jobs; wait for the running ones. */
  stop(): Promise<void>;
  /** Resolves when no job is running and none is due now. */
  whenIdle(): Promise<void>;
}
