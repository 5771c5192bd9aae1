import { mkdirSync } from "node:fs";
import path from "node:path";
import pino from "pino";
import { ConfigError } from "../errors/roundtable-error.js";
import { createLogger, type Logger } from "../log/logger.js";
import { environmentSecrets } from "../log/redact-secrets.js";
import type { CliContext } from "./cli-context.js";
import { routeProcessWarnings } from "./process-warnings.js";

const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Where `roundtable chat` writes its log, relative to the working directory. */
const chatLogFile = path.join("data", "roundtable-chat.log");

/**
 * The logger of `roundtable chat`: the terminal shows the conversation, so the log goes to
 * `./data/roundtable-chat.log` (JSON lines, at `LOG_LEVEL`, default info), and only an error
 * also appears on stderr, as one readable line without a stack trace.
 */
export function createChatLogger(
  context: CliContext,
  secrets: Iterable<string> = [],
): { logger: Logger; file: string } {
  const level = context.env.LOG_LEVEL?.trim() || "info";
  if (!levels.includes(level)) {
    throw new ConfigError(`LOG_LEVEL: expected one of ${levels.join(", ")}, got ${JSON.stringify(level)}`);
  }
  const file = path.join(context.cwd, chatLogFile);
  mkdirSync(path.dirname(file), { recursive: true });
  const streams: pino.StreamEntry[] = [
    {
      level: level === "silent" ? "fatal" : (level as pino.Level),
      stream: pino.destination({ dest: file, sync: true }),
    },
    { level: "error", stream: { write: (line: string) => context.stderr.write(oneLine(line)) } },
  ];
  const logger = createLogger({
    level,
    destination: pino.multistream(streams),
    secrets: [...environmentSecrets(context.env), ...secrets],
  });
  routeProcessWarnings(logger);
  return { logger, file: chatLogFile };
}

/** `roundtable: error: <message>: <cause> (details in data/roundtable-chat.log)` from a JSON log line. */
function oneLine(jsonLine: string): string {
  let entry: { msg?: unknown; cause?: unknown; err?: { message?: unknown } };
  try {
    entry = JSON.parse(jsonLine) as typeof entry;
  } catch {
    return `roundtable: ${jsonLine.trim()}\n`;
  }
  const message = typeof entry.msg === "string" ? entry.msg : "error";
  const detail = typeof entry.err?.message === "string" ? entry.err.message : entry.cause;
  const cause = typeof detail === "string" ? `: ${detail.split("\n")[0]}` : "";
  return `roundtable: error: ${message}${cause} (details in ${chatLogFile})\n`;
}
