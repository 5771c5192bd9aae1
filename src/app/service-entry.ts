import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";

/** What `roundtable start` runs. Owned by the lead; the CLI calls it. */
export interface StartServiceOptions {
  config: Config;
  /** Where the config came from (file path or `built-in default`), for logs. */
  configSource: string;
  databaseUrl: string;
  port: number;
  /** The listen address (`HOST`, default `0.0.0.0`). */
  host?: string;
  /** Bearer token required on `/metrics` (`METRICS_TOKEN`), when set. */
  metricsToken?: string;
  /** The working directory: the web console's generated token is kept in `./data` under it (default: the process's). */
  cwd?: string;
  logger: Logger;
}

export interface RunningService {
  /** Stop taking work, let running steps finish or park, close everything. */
  stop(): Promise<void>;
  /** The HTTP port actually bound (useful when 0 was asked). */
  port: number;
  /** The web console's login address (`…/login#token=…`), unless `web.enabled` is false. Print it; never log it. */
  webLoginAddress?: string;
}

/** What `roundtable chat` runs: the console channel. Resolves with the exit code. */
export interface ConsoleChatOptions {
  config: Config;
  databaseUrl: string;
  world?: string;
  as?: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A terminal: stream answers as they come. Otherwise whole lines, each input line after the last settled. */
  interactive?: boolean;
  /**
   * Resolves when the user asks to stop (Ctrl-C): the chat then stops as `start` does on
   * SIGTERM (running steps get a short grace, then their tools are ended) and resolves with 130.
   */
  stopRequested?: Promise<unknown>;
  logger: Logger;
}
