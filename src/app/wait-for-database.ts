import { setTimeout as sleep } from "node:timers/promises";
import { isDatabaseUnreachable } from "../errors/database-unreachable.js";
import { errorMessage } from "../errors/roundtable-error.js";
import { startHttpServer, type RunningHttpServer } from "../http/start-http-server.js";
import type { Logger } from "../log/logger.js";
import { createMetrics } from "../metrics/metrics.js";

export interface WaitForDatabaseOptions {
  /** What needs the database first (the migration): tried until it passes, or fails for another cause. */
  attempt: () => Promise<void>;
  logger: Logger;
  /** Where `/readyz` answers 503 (and `/healthz` 200) while the database is away. */
  port: number;
  host?: string;
  /** Resolves when the service is asked to stop: waiting ends, with "stopped". */
  stopped: Promise<unknown>;
  /** Backoff between tries (default 0.5 s doubling to 5 s). */
  delaysMs?: { first: number; max: number };
}

/**
 * `roundtable start` with its database away (docs/reliability.md): instead of exiting, the
 * start waits, trying again with backoff, while a stand-in HTTP server on the service's port
 * answers `/healthz` 200 and `/readyz` 503 (`database`: why not), so an orchestrator sees a
 * process that is up and not ready. Once the attempt passes, the stand-in is closed and the
 * start goes on ("ready"). Any other failure is thrown as before.
 */
export async function waitForDatabase(options: WaitForDatabaseOptions): Promise<"ready" | "stopped"> {
  const { logger } = options;
  const { first, max } = options.delaysMs ?? { first: 500, max: 5_000 };
  let standIn: RunningHttpServer | undefined;
  let stopped = false;
  void options.stopped.then(() => {
    stopped = true;
  });
  let detail = "";
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await options.attempt();
        if (attempt > 1) logger.info({ attempts: attempt }, "database reachable: starting");
        return "ready";
      } catch (error) {
        if (!isDatabaseUnreachable(error)) throw error;
        detail = errorMessage(error);
        const wait = Math.min(first * 2 ** (attempt - 1), max);
        logger.warn(
          { err: error, attempt, retryInMs: wait },
          "database unreachable at start: waiting for it (/readyz answers 503 meanwhile)",
        );
        standIn ??= await startHttpServer({
          port: options.port,
          ...(options.host === undefined ? {} : { host: options.host }),
          logger,
          metrics: createMetrics(),
          routes: [],
          readiness: async () => ({ ok: false, checks: { database: { ok: false, detail } } }),
          closeGraceMs: 500,
        });
        await Promise.race([sleep(wait), options.stopped]);
        if (stopped) return "stopped";
      }
    }
  } finally {
    await standIn?.close();
  }
}
