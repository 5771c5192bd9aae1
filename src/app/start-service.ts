import { startHttpServer } from "../http/start-http-server.js";
import { combineReadinessChecks } from "../http/readiness.js";
import { createMetrics, registerProcessMetrics, registerStatementMetric } from "../metrics/metrics.js";
import { openStore } from "../storage/open-store.js";
import { startTelemetry } from "../telemetry/start-telemetry.js";
import { turnSpans } from "../telemetry/turn-spans.js";
import { isWebhookChannel } from "../world/channel-adapter.js";
import { buildParts } from "./build-parts.js";
import { inFlightOf } from "../world/queue/step-slots.js";
import { releaseStartMemory } from "./release-start-memory.js";
import { createChannels } from "./create-channels.js";
import { createWebConsole } from "./create-web-console.js";
import { eventMetrics } from "./event-metrics.js";
import { Roundtable } from "./roundtable.js";
import { resolveWebConsoleToken, webLoginAddress, webLoginAddressRedacted } from "./web-console-token.js";
import type { RunningService, StartServiceOptions } from "./service-entry.js";

/**
 * `roundtable start`: the store (migrated by the CLI before), the configured channels, the
 * world engine with its stored work, and the HTTP server (health, readiness, metrics, webhooks).
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  // MCP servers connect while the database and the channels get ready (their network waits
  // overlap); a model SDK loads on its provider's first call (src/providers/create-provider.ts).
  const building = buildParts(config, logger, {
    state: {
      databaseUrl: options.databaseUrl,
      configPath: options.configSource === "built-in default" ? undefined : options.configSource,
      cwd: options.cwd,
    },
  });
  // Awaited below; a failure meanwhile is not an unhandled rejection.
  building.catch(() => undefined);
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    // `roundtable start` migrated the database just before: a second pass would only read it again.
    opened = await openStore({ databaseUrl: options.databaseUrl, logger, migrate: false });
  } catch (error) {
    // Nothing will run: close the MCP servers that were started meanwhile.
    void building.then((built) => Promise.allSettled((built.closeables ?? []).map((part) => part.close())));
    throw error;
  }
  const queue = opened.createQueue({ concurrency: inFlightOf(config.queue) });
  logger.info(
    opened.provider === "sqlite"
      ? "work queue: embedded (SQLite): run one `roundtable start` per database file; several processes need PostgreSQL"
      : "work queue: graphile-worker (PostgreSQL): other `roundtable start` processes may share this database",
  );
  const channels = await createChannels(config, logger, {
    singletonLock: opened.singletonLock,
    installations: opened.store,
  });
  const webToken = config.web.enabled
    ? await resolveWebConsoleToken(config.web.token, options.cwd ?? process.cwd())
    : undefined;
  if (webToken?.source === "file" && opened.provider === "postgresql") {
    logger.warn(
      { tokenFrom: webToken.file },
      "web console: WEB_CONSOLE_TOKEN is not set, so this process uses a token of its own directory; set WEB_CONSOLE_TOKEN to the same value for every process sharing this database, or logins made at one are refused by the others",
    );
  }
  const web = createWebConsole({
    config,
    token: webToken?.token ?? "",
    store: opened.store,
    logger,
    // Called per request, after `roundtable` exists.
    channelStatus: () => roundtable.channelStatus(),
  });
  if (web) channels.push(web);
  const parts = await building;
  const roundtable = new Roundtable({ ...parts, config, store: opened.store, queue, logger, channels });
  const metrics = createMetrics();
  registerProcessMetrics(metrics);
  registerStatementMetric(metrics, opened.statementCount);
  roundtable.engine.outbox.subscribe(eventMetrics(metrics));
  const telemetry = await startTelemetry({ metrics, logger, env: process.env });
  roundtable.engine.outbox.subscribe(
    turnSpans(
      {
        turnStartedAt: async (turnId) => (await opened.store.getTurn(turnId))?.startedAt,
        approval: async (approvalId) => {
          const approval = await opened.store.getApproval(approvalId);
          return approval && { turnId: approval.turnId, requestedAt: approval.createdAt };
        },
      },
      logger,
    ),
  );
  await roundtable.start();

  const http = await startHttpServer({
    port: options.port,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
    logger,
    metrics,
    routes: [
      ...channels.flatMap((channel) => (isWebhookChannel(channel) ? channel.webhookRoutes() : [])),
      ...roundtable.triggerRoutes(),
    ],
    readiness: () =>
      combineReadinessChecks({
        database: async () => {
          await opened.store.ping();
          return { ok: true };
        },
        queue: () =>
          queue.isRunning() ? { ok: true } : { ok: false, detail: "the work queue's worker is not running" },
        ...Object.fromEntries(
          roundtable
            .channelStatus()
            .map((status) => [
              `channel:${status.platform}`,
              () => (status.connected ? { ok: true } : { ok: false, detail: "not connected" }),
            ]),
        ),
      }),
  });
  logger.info(
    { port: http.port, config: options.configSource, channels: channels.map((channel) => channel.platform) },
    "roundtable started",
  );
  let loginAddress: string | undefined;
  if (web && webToken) {
    const where = { ...(options.host === undefined ? {} : { host: options.host }), port: http.port };
    loginAddress = webLoginAddress({ ...where, token: webToken.token });
    // The token stays out of the log: the line names where it is instead.
    const url = webLoginAddressRedacted(where);
    const tokenFrom = webToken.file ?? "WEB_CONSOLE_TOKEN";
    logger.info(
      {
        url,
        tokenFrom,
        ...(webToken.created ? { generated: true } : {}),
        people: Object.keys(config.channels.web?.users ?? {}).length,
      },
      `web console: open ${url} and log in with the token from ${tokenFrom} (\`roundtable web-login\` prints the address)`,
    );
  }
  releaseStartMemory(logger);
  let stopping: Promise<void> | undefined;
  return {
    port: http.port,
    ...(loginAddress === undefined ? {} : { webLoginAddress: loginAddress }),
    stop() {
      stopping ??= (async () => {
        logger.info("stopping: no new work; letting running steps finish");
        // The web console's event streams never end by themselves: close them before the server.
        web?.hub.close();
        await http.close();
        await roundtable.stop();
        await telemetry.shutdown();
        await opened.close();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}
