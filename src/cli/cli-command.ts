import type { ParseArgsOptionsConfig } from "node:util";
import type { CliContext } from "./cli-context.js";

/** Option values after parsing: strings and booleans by option name. */
export type OptionValues = Record<string, string | boolean | undefined>;

/** One `roundtable <command>`. */
export interface CliCommand {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The whole `roundtable <command> --help` text. */
  help: string;
  /** The command's own options (`--config` and `--help` are added for every command). */
  options: ParseArgsOptionsConfig;
  /** Takes words after the command (`roundtable rules revoke <id>`), passed as `positionals`. */
  allowPositionals?: boolean;
  /** Resolves with the exit code. `configPath` is the global `--config`. */
  run(
    values: OptionValues,
    context: CliContext & { configPath: string | undefined; positionals?: readonly string[] },
  ): Promise<number>;
}
