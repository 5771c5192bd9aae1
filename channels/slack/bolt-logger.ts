import { LogLevel, type Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";

/**
 * Bolt's and the Web API client's log lines through the service's logger. Bolt's info lines
 * are routine (connections, retries): they go out as debug, except rate-limit waits.
 */
export function boltLogger(logger: Logger): SlackLogger {
  const child = logger.child({ component: "bolt" });
  const text = (parts: unknown[]): string =>
    parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ");
  return {
    debug: (...parts) => child.debug(text(parts)),
    info: (...parts) => {
      const line = text(parts);
      if (/rate limit/i.test(line)) child.warn(line);
      else child.debug(line);
    },
    warn: (...parts) => child.warn(text(parts)),
    error: (...parts) => child.error(text(parts)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.DEBUG,
    setName: () => undefined,
  };
}
