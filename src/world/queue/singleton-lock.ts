/**
 * A lock that one process of many holds at a time, for connections a platform allows only once
 * per bot (Telegram long polling, Discord's gateway). With PostgreSQL it is a session advisory
 * lock on the process's locks connection: when the holder dies, its connection closes, the lock is free,
 * and a waiting process takes it within about a second. With SQLite (one process per database
 * file) it is granted at once.
 *
 * ```ts
 * for (;;) {
 *   const lease = await lock.acquire(`telegram:${botId}`, stopSignal); // waits while another holds it
 *   startPolling();
 *   await Promise.race([once(lease.lost, "abort"), once(stopSignal, "abort")]);
 *   stopPolling();
 *   await lease.release();
 *   if (stopSignal.aborted) break;
 * }
 * ```
 */
export interface SingletonLock {
  /**
   * Resolves once this process holds `name`, trying again about every second while another
   * process holds it. Rejects with the signal's reason when `signal` aborts first.
   */
  acquire(name: string, signal: AbortSignal): Promise<SingletonLease>;
}

/** A held {@link SingletonLock}. */
export interface SingletonLease {
  /** Aborts when the lock is lost (its database connection broke): stop using the connection. */
  readonly lost: AbortSignal;
  /** Gives the lock up (idempotent). */
  release(): Promise<void>;
}

/** The lock of a process that is alone with its database (SQLite): always granted at once. */
export const localSingletonLock: SingletonLock = {
  async acquire(_name, signal) {
    signal.throwIfAborted();
    const lost = new AbortController();
    return { lost: lost.signal, release: async () => undefined };
  },
};
