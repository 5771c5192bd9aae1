import { configSecrets } from "../config/config-secrets.js";
import { loadConfig, resolveDatabaseUrl } from "../config/load-config.js";
import type { CliCommand } from "./cli-command.js";
import { createChatLogger } from "./chat-logger.js";
import { waitForStopSignal } from "./wait-for-stop-signal.js";

export const chatCommand: CliCommand = {
  name: "chat",
  summary: "Talk to a world from the terminal (the console channel)",
  help: `Usage: roundtable chat [--config FILE] [--world NAME] [--as NAME]

Reads lines from stdin (a terminal or a pipe) as your messages and prints every message of
the chat as "<sender>: <text>". Address agents with @name at the start of a line.
An approval request prints as one line, for example
  approval 7f3a: alice wants to run shell_cmd {"command":"ls"} — /approve once|session|deny 7f3a
Answer with /approve once|session|deny [id] (the oldest pending one when no id is given).
At the end of stdin it waits until no turn is running, then exits 0.
Running it again with the same --world and --as on the same database continues the chat.

Options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  --world NAME    The world to talk to (default: the first world in the config)
  --as NAME       Your name in the chat (default: $USER)
  -h, --help      Show this help

The terminal shows the conversation: logs go to ./data/roundtable-chat.log at LOG_LEVEL
(default info); an error also prints one line on stderr.`,
  options: { world: { type: "string" }, as: { type: "string" } },
  async run(values, context) {
    const loaded = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    for (const warning of loaded.warnings) context.stderr.write(`roundtable: warning: ${warning}\n`);
    const { logger } = createChatLogger(context, configSecrets(loaded.config));
    const { runConsoleChat } = await import("../app/run-console-chat.js");
    const { lockSqliteDatabase } = await import("../storage/sqlite-process-lock.js");
    const databaseUrl = resolveDatabaseUrl(context.env);
    // SQLite: one process per file; beside a running `start` this refuses with what to do instead.
    const lock = lockSqliteDatabase({ databaseUrl, command: "roundtable chat", logger });
    try {
      // Ctrl-C stops the chat as SIGTERM stops `start`: running tools are ended, not orphaned.
      const stopRequested = waitForStopSignal((signal) => {
        logger.warn({ signal }, "second signal while stopping: exiting now");
        process.exit(130);
      }).then((signal) => {
        logger.info({ signal }, "signal received: stopping");
        context.stderr.write("roundtable: stopping (running tools are ended; press Ctrl-C again to quit at once)\n");
      });
      return await runConsoleChat({
        config: loaded.config,
        databaseUrl,
        ...(typeof values.world === "string" ? { world: values.world } : {}),
        ...(typeof values.as === "string" ? { as: values.as } : {}),
        input: context.stdin,
        output: context.stdout,
        interactive: context.stdin.isTTY === true && context.stdout.isTTY === true,
        stopRequested,
        logger,
      });
    } finally {
      lock.release();
    }
  },
};
