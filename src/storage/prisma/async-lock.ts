/**
 * A first-come-first-served lock for async work. `acquire` resolves with the function that
 * releases it; releasing twice is harmless.
 */
export class AsyncLock {
  private tail: Promise<void> = Promise.resolve();

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => released);
    await previous;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  }

  /** Run `work` while holding the lock. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
