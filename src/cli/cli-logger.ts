import { ConfigError } from "../errors/roundtable-error.js";
import { createLogger, type Logger } from "../log/logger.js";
import { environmentSecrets } from "../log/redact-secrets.js";
import type { CliContext } from "./cli-context.js";
import { routeProcessWarnings } from "./process-warnings.js";

const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/**
 * The process logger on stderr: readable when stderr is a terminal, JSON lines otherwise.
 * `LOG_LEVEL` wins over the command's default level.
 */
export function createCliLogger(context: CliContext, defaultLevel: string, secrets: Iterable<string> = []): Logger {
  const level = context.env.LOG_LEVEL?.trim() || defaultLevel;
  if (!levels.includes(level)) {
    throw new ConfigError(`LOG_LEVEL: expected one of ${levels.join(", ")}, got ${JSON.stringify(level)}`);
  }
  const logger = createLogger({
    level,
    pretty: context.stderr.isTTY === true,
    secrets: [...environmentSecrets(context.env), ...secrets],
  });
  routeProcessWarnings(logger);
  return logger;
}
