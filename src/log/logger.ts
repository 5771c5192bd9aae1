import pino from "pino";
import { secretRedactor } from "./redact-secrets.js";

/** The one injected logger type. Child loggers bind `{ platform, chat, agent, turn }`. */
export type Logger = pino.Logger;

/** Paths that never reach a log line. */
export const redactedPaths = [
  "token",
  "*.token",
  "apiKey",
  "*.apiKey",
  "botToken",
  "*.botToken",
  "appToken",
  "*.appToken",
  "signingSecret",
  "*.signingSecret",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "password",
  "*.password",
  // A failed spawn's error carries the whole command line (an MCP server's `args` may hold keys).
  "spawnargs",
  "*.spawnargs",
  "*.cause.spawnargs",
];

export interface LoggerOptions {
  level?: string;
  pretty?: boolean;
  destination?: pino.DestinationStream;
  /** Known secret values (tokens, keys) taken out of every line wherever they appear. */
  secrets?: Iterable<string>;
}

/**
 * JSON by default; readable when `pretty` (a terminal). Secrets are redacted twice: known
 * fields by path, and every written line through one redactor (known secret values and
 * secret-shaped text such as the bot token inside a Telegram API URL).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  const redact = secretRedactor(options.secrets ?? []);
  const base: pino.LoggerOptions = {
    level,
    redact: { paths: redactedPaths, censor: "[redacted]" },
    base: { service: "roundtable" },
    hooks: { streamWrite: redact },
  };
  if (options.destination) return withPlainValuesUnredacted(pino(base, options.destination));
  if (options.pretty) {
    return withPlainValuesUnredacted(
      pino({
        ...base,
        transport: { target: "pino-pretty", options: { colorize: true, destination: 2 } },
      }),
    );
  }
  return withPlainValuesUnredacted(pino(base, pino.destination({ dest: 2, sync: false })));
}

type Stringifier = (value: unknown, ...rest: unknown[]) => string | undefined;

/**
 * The `*.…` paths make pino run every value of a line, and every binding of a child logger
 * (made for each step and route, whatever the level), through its redactor, which parses each
 * path again on every call: a tenth of what the service allocated per message (docs/performance.md,
 * "Less garbage a message"). No path can match inside a string, number, boolean or null, and for
 * those the redactor only serializes (`JSON.stringify`); so they are serialized directly, and
 * objects still go through the redactor. Children share the root's stringifiers.
 */
function withPlainValuesUnredacted(logger: Logger): Logger {
  const stringifiers = (logger as unknown as Record<symbol, Record<symbol, Stringifier | undefined> | undefined>)[
    pino.symbols.stringifiersSym
  ];
  const redactObject = stringifiers?.[pino.symbols.wildcardFirstSym];
  if (stringifiers === undefined || redactObject === undefined) return logger;
  stringifiers[pino.symbols.wildcardFirstSym] = (value, ...rest) =>
    value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"
      ? JSON.stringify(value)
      : redactObject(value, ...rest);
  return logger;
}

/** A logger that writes nothing, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
