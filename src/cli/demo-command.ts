import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../config/load-config.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { createCliLogger } from "./cli-logger.js";
import { parsePort } from "./parse-port.js";
import { waitForStopSignal } from "./wait-for-stop-signal.js";

export const demoCommand: CliCommand = {
  name: "demo",
  summary: "Try Roundtable with no key: two scripted agents in the web console, one with shell_cmd",
  help: `Usage: roundtable demo [--port N]

Starts the service on a throwaway SQLite file in a fresh temporary directory, with the
built-in scripted model (no key, no network) and a world "demo" of two agents:
  alice  runs shell_cmd in a scratch directory seeded with a few files (each command
         waits for your approval on its card)
  bob    has no tools; alice can ask him things
Then open the printed address and try "@alice list the files", "@alice show notes.txt"
or "@alice ask @bob what he thinks of the plan". Ctrl-C stops it and removes the directory.
Any config file, DATABASE_URL and platform tokens are ignored.

Options:
  --port N        HTTP port (default: $PORT, else 8080)
  -h, --help      Show this help

Environment: PORT, HOST (listen address, default 127.0.0.1), LOG_LEVEL (default warn).`,
  options: { port: { type: "string" } },
  async run(values, context) {
    const port = parsePort(typeof values.port === "string" ? values.port : undefined, context.env);
    const logger = createCliLogger(context, "warn");
    const directory = await mkdtemp(path.join(tmpdir(), "roundtable-demo-"));
    try {
      const { prepareDemo } = await import("../app/demo-setup.js");
      const layout = await prepareDemo(directory);
      // Only the demo's own file counts: no provider key or platform token from the environment.
      const loaded = await loadConfig({ configPath: layout.configPath, env: {}, cwd: directory });
      const { migrateDatabase } = await import("../storage/migrate.js");
      const { startService } = await import("../app/start-service.js");
      const stopped = waitForStopSignal((signal) => {
        logger.warn({ signal }, "second signal while stopping: exiting now");
        process.exit(130);
      });
      await migrateDatabase({ databaseUrl: layout.databaseUrl, logger });
      const service = await startService({
        config: loaded.config,
        configSource: layout.configPath,
        databaseUrl: layout.databaseUrl,
        port,
        host: context.env.HOST?.trim() || "127.0.0.1",
        // The web console's token is generated into the demo's own directory, gone with it.
        cwd: directory,
        logger,
      });
      const address = service.webLoginAddress ?? `http://localhost:${service.port}/`;
      context.stdout.write(demoBanner(address, layout.configPath, layout.scratch));
      await stopped;
      context.stdout.write("roundtable demo: stopping\n");
      await service.stop();
      return exitCodes.ok;
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  },
};

/** What the demo prints once it is up: where to open the web console, and what to try there. */
function demoBanner(address: string, configPath: string, scratch: string): string {
  return [
    "",
    `web console: open ${address}`,
    "",
    "Roundtable demo: world `demo` with @alice (shell_cmd in a scratch folder) and @bob, on the",
    "built-in scripted model (no key, no network). Try:",
    "  @alice list the files          (approve the card, then see the listing)",
    "  @alice show notes.txt",
    "  @alice ask @bob what he thinks of the plan",
    `Config: ${configPath}`,
    `Scratch folder: ${scratch}`,
    "Ctrl-C stops the demo and removes both.",
    "",
  ].join("\n");
}
