/** Signals that stop the service gracefully. */
const stopSignals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * Resolves with the first SIGINT or SIGTERM. A second one while stopping calls `onSecond`
 * (the caller exits at once: someone is impatient or the stop hangs).
 */
export function waitForStopSignal(onSecond: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals): void => {
      if (received) {
        onSecond(signal);
        return;
      }
      received = true;
      resolve(signal);
    };
    for (const signal of stopSignals) process.on(signal, handler);
  });
}
