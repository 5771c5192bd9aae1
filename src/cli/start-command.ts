import { configSecrets } from "../config/config-secrets.js";
import { exposureWarnings, metricsExposureWarning } from "../config/exposure-warnings.js";
import { loadConfig, resolveDatabaseUrl } from "../config/load-config.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { createCliLogger } from "./cli-logger.js";
import { parsePort } from "./parse-port.js";
import { waitForStopSignal } from "./wait-for-stop-signal.js";

export const startCommand: CliCommand = {
  name: "start",
  summary: "Run the service: channels, agents, and the HTTP port (health, metrics, webhooks)",
  help: `Usage: roundtable start [--config FILE] [--port N]

Runs the service until SIGINT or SIGTERM: applies database migrations, connects the
configured channels and MCP servers, resumes stored work, and serves HTTP:
  /healthz  /readyz  /metrics  /slack/events  /telegram/webhook

Options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  --port N        HTTP port (default: $PORT, else 8080)
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db), PORT, HOST (listen address,
default 0.0.0.0), METRICS_TOKEN (bearer token required on /metrics when set),
WEB_CONSOLE_TOKEN (the web console's shared token; unset: generated once and kept in
./data/web-console-token), LOG_LEVEL (default info), provider keys and platform tokens
(see the README). The web console's login address is printed on stdout at start.
On SIGINT/SIGTERM it stops taking work, lets running steps finish or park, and exits 0.`,
  options: { port: { type: "string" } },
  async run(values, context) {
    // Checked first: a bad --port is bad usage, told before anything else is loaded.
    const port = parsePort(typeof values.port === "string" ? values.port : undefined, context.env);
    const loaded = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    const { keptWebConsoleToken } = await import("../app/web-console-token.js");
    const kept = keptWebConsoleToken(context.cwd);
    const logger = createCliLogger(context, "info", [
      ...configSecrets(loaded.config),
      ...(kept === undefined ? [] : [kept]),
    ]);
    const databaseUrl = resolveDatabaseUrl(context.env);
    // Loaded on use, so `--help` and the other commands start fast and do not need them.
    const { migrateDatabase } = await import("../storage/migrate.js");
    const { startService } = await import("../app/start-service.js");
    const { waitForDatabase } = await import("../app/wait-for-database.js");
    const { lockSqliteDatabase } = await import("../storage/sqlite-process-lock.js");
    // SQLite: this process alone works on the file until it exits (a second one is refused).
    const lock = lockSqliteDatabase({ databaseUrl, command: "roundtable start", logger });
    try {
      // After the lock: a second process on a busy SQLite file says one line and nothing else.
      for (const warning of loaded.warnings) logger.warn(warning);
      for (const warning of exposureWarnings(loaded.config)) {
        logger.warn({ world: warning.world, platform: warning.platform, tools: warning.tools }, warning.text);
      }
      const metricsWarning = metricsExposureWarning(context.env);
      if (metricsWarning !== undefined) logger.warn(metricsWarning);
      const stopped = waitForStopSignal((signal) => {
        logger.warn({ signal }, "second signal while stopping: exiting now");
        process.exit(130);
      });
      const host = context.env.HOST?.trim() || "0.0.0.0";
      // A database away at start is waited for (/readyz 503 meanwhile), not a reason to exit.
      const reached = await waitForDatabase({
        attempt: async () => {
          await migrateDatabase({ databaseUrl, logger });
        },
        logger,
        port,
        host,
        stopped,
      });
      if (reached === "stopped") return exitCodes.ok;
      const service = await startService({
        config: loaded.config,
        configSource: loaded.source,
        databaseUrl,
        port,
        host,
        ...(context.env.METRICS_TOKEN?.trim() ? { metricsToken: context.env.METRICS_TOKEN.trim() } : {}),
        cwd: context.cwd,
        logger,
      });
      // A plain line for the person who started it (the JSON log keeps the token out).
      if (service.webLoginAddress !== undefined) context.stdout.write(`web console: open ${service.webLoginAddress}\n`);
      const signal = await stopped;
      logger.info({ signal }, "signal received: stopping");
      await service.stop();
      return exitCodes.ok;
    } finally {
      lock.release();
    }
  },
};
