import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../config/package-root.js";
import { errorMessage, RoundtableError } from "../errors/roundtable-error.js";
import { chatCommand } from "./chat-command.js";
import { checkCommand } from "./check-command.js";
import { demoCommand } from "./demo-command.js";
import type { CliCommand, OptionValues } from "./cli-command.js";
import { type CliContext, exitCodes } from "./cli-context.js";
import { approvalsCommand } from "./approvals-command.js";
import { migrateCommand } from "./migrate-command.js";
import { replayCommand } from "./replay-command.js";
import { startCommand } from "./start-command.js";
import { usageCommand } from "./usage-command.js";
import { schedulesCommand } from "./schedules-command.js";
import { rulesCommand } from "./rules.js";
import { UsageError } from "./usage-error.js";
import { webLoginCommand } from "./web-login-command.js";

export const commands: readonly CliCommand[] = [
  startCommand,
  demoCommand,
  chatCommand,
  checkCommand,
  migrateCommand,
  usageCommand,
  approvalsCommand,
  rulesCommand,
  schedulesCommand,
  replayCommand,
  webLoginCommand,
];

export function usage(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `roundtable: teams of LLM agents in Slack, Telegram and Discord chats, with a human's approval for every tool call.

Usage: roundtable [--config FILE] <command> [options]

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}

Global options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  -h, --help      Show help; \`roundtable <command> --help\` for a command
  --version       Print the version

From a clone: npm start (= roundtable start), npm run roundtable -- <command> [options].`;
}

/**
 * Parses the command line and runs a command; resolves with the exit code. A config problem
 * prints its message (file, path, expectation) to stderr and gives 1, never a stack trace;
 * bad usage prints the usage and gives 2.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const global = splitGlobalOptions(argv);
  if ("error" in global) return usageError(context, global.error);
  if (global.version) {
    context.stdout.write(`roundtable ${await packageVersion()}\n`);
    return exitCodes.ok;
  }
  const [name, ...rest] = global.rest;
  if (name === undefined) {
    context[global.help ? "stdout" : "stderr"].write(`${usage()}\n`);
    return global.help ? exitCodes.ok : exitCodes.usage;
  }
  if (name === "help") {
    const topic = commands.find((command) => command.name === rest[0]);
    context.stdout.write(`${topic ? topic.help : usage()}\n`);
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) return usageError(context, `unknown command ${JSON.stringify(name)}`);
  if (global.help) {
    context.stdout.write(`${command.help}\n`);
    return exitCodes.ok;
  }

  const eaten = configEatenByNpm(context.env, argv, rest);
  if (eaten !== undefined) {
    context.stderr.write(
      `roundtable: npm took --config as its own setting, so roundtable never saw it. ` +
        `Put -- before roundtable's options: npm start -- --config ${eaten} ` +
        `(or npm run roundtable -- ${command.name} --config ${eaten}).\n`,
    );
    return exitCodes.usage;
  }

  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...rest],
      options: { ...command.options, config: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: command.allowPositionals === true,
      strict: true,
    }));
  } catch (error) {
    context.stderr.write(`roundtable ${command.name}: ${errorMessage(error)}\n\n${command.help}\n`);
    return exitCodes.usage;
  }
  if (values.help === true) {
    context.stdout.write(`${command.help}\n`);
    return exitCodes.ok;
  }
  const configPath = typeof values.config === "string" ? values.config : global.configPath;
  try {
    return await command.run(values, { ...context, configPath, positionals });
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(`roundtable ${command.name}: ${error.message}\n\n${command.help}\n`);
      return exitCodes.usage;
    }
    return reportFailure(context, command.name, error);
  }
}

/**
 * `npm start --config x` (no `--`): npm keeps `--config` as its own setting and passes it down
 * only as `npm_config_config` (npm 11: `true`, with `x` left as an argument to the script;
 * older ones: `x`). Under an npm script, with no `--config` of ours, that is the file the person
 * meant; its name is returned for the hint.
 */
function configEatenByNpm(
  env: Record<string, string | undefined>,
  argv: readonly string[],
  rest: readonly string[],
): string | undefined {
  const eaten = env.npm_config_config;
  if (eaten === undefined || eaten === "" || env.npm_lifecycle_event === undefined) return undefined;
  if (argv.some((argument) => argument === "--config" || argument.startsWith("--config="))) return undefined;
  if (eaten !== "true") return eaten;
  return rest.find((argument) => !argument.startsWith("-")) ?? "FILE";
}

interface GlobalOptions {
  configPath: string | undefined;
  help: boolean;
  version: boolean;
  /** The command and everything after it. */
  rest: string[];
}

/** Options before the command: `--config FILE`, `--help`, `--version`. */
function splitGlobalOptions(argv: readonly string[]): GlobalOptions | { error: string } {
  const result: GlobalOptions = { configPath: undefined, help: false, version: false, rest: [] };
  let index = 0;
  for (; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (!argument.startsWith("-")) break;
    if (argument === "--help" || argument === "-h") result.help = true;
    else if (argument === "--version") result.version = true;
    else if (argument === "--config") {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith("-")) return { error: "--config needs a file" };
      result.configPath = value;
      index++;
    } else if (argument.startsWith("--config=")) result.configPath = argument.slice("--config=".length);
    else return { error: `unknown option ${argument}` };
  }
  result.rest = argv.slice(index);
  return result;
}

function usageError(context: CliContext, message: string): number {
  context.stderr.write(`roundtable: ${message}\n\n${usage()}\n`);
  return exitCodes.usage;
}

function reportFailure(context: CliContext, command: string, error: unknown): number {
  if (error instanceof RoundtableError && error.code.startsWith("config.")) {
    context.stderr.write(`${error.message}\n`);
    return exitCodes.failed;
  }
  const prefix = error instanceof RoundtableError ? `roundtable ${command}` : `roundtable ${command} failed`;
  context.stderr.write(`${prefix}: ${errorMessage(error)}\n`);
  if (context.env.LOG_LEVEL === "debug" || context.env.LOG_LEVEL === "trace") {
    context.stderr.write(`${error instanceof Error ? (error.stack ?? "") : ""}\n`);
  }
  return exitCodes.failed;
}

async function packageVersion(): Promise<string> {
  try {
    const text = await readFile(path.join(packageRoot(), "package.json"), "utf8");
    return (JSON.parse(text) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}
