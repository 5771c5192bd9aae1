/** A signal tied to others for as long as one step needs it; {@link LinkedSignal.release} unties it. */
export interface LinkedSignal {
  /** Aborts when any source does (with its reason), or when the time runs out (a `TimeoutError`). */
  signal: AbortSignal;
  /** Detaches from the sources and clears the timer; call it when the step is over. Idempotent. */
  release(): void;
}

/**
 * What `AbortSignal.any(sources)` plus `AbortSignal.timeout(ms)` give, without their memory:
 * Node keeps a composite or timeout signal alive while it has an abort listener and has not
 * aborted, the model and MCP SDKs leave their listeners on the signal they are given, and the
 * process's stop signal never aborts while it runs. So every model step kept its signals, its
 * timer (until the turn's deadline) and the async context the timer captured: about 3 KB per
 * answered message, growing with the number of messages handled. A plain controller whose
 * listeners on the sources are removed at the end of the step is collected like anything else.
 */
export function linkedSignal(sources: readonly AbortSignal[], timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  const detach: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    for (const undo of detach.splice(0)) undo();
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const abort = (reason: unknown) => {
    controller.abort(reason);
    release();
  };
  for (const source of sources) {
    if (source.aborted) {
      abort(source.reason);
      return { signal: controller.signal, release };
    }
    const listener = () => abort(source.reason);
    source.addEventListener("abort", listener, { once: true });
    detach.push(() => source.removeEventListener("abort", listener));
  }
  if (timeoutMs !== undefined) {
    timer = setTimeout(
      () => abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      Math.max(1, timeoutMs),
    );
    timer.unref();
  }
  return { signal: controller.signal, release };
}
