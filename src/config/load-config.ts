import { readFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError, errorMessage } from "../errors/roundtable-error.js";
import { applyEnvDefaults } from "./apply-env-defaults.js";
import { checkReferences } from "./check-references.js";
import { describeValue, formatConfigPath } from "./config-path.js";
import { defaultConfigData, noProviderKeyMessage } from "./default-config.js";
import { type ConfigOrigin, findConfigFile } from "./find-config-file.js";
import { type ConfigProblem, formatProblem, problemsFromIssues } from "./format-config-issues.js";
import { parseConfigText } from "./parse-config-text.js";
import { requiresApiKey } from "./provider-environment.js";
import { type ChannelsConfig, type Config, configSchema } from "./schema.js";

export { resolveDatabaseUrl } from "./database-url.js";

type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** From `--config`; relative to `cwd`. */
  configPath?: string | undefined;
  env: Env;
  cwd: string;
}

/** A validated config with everything the environment adds already filled in. */
export interface LoadedConfig {
  config: Config;
  /** The absolute file path, or `built-in default`. */
  source: string;
  origin: ConfigOrigin;
  /** Things worth a log line at start (a channel left off, no provider key). */
  warnings: string[];
  /**
   * Providers used by an agent that have no key. Only the built-in default gets here (a file
   * with such a provider is an error): the agent should answer that no provider key is configured.
   */
  unconfiguredProviders: string[];
}

/**
 * Finds, reads, interpolates, validates and cross-checks the config. Every problem becomes a
 * `ConfigError` whose message names the file, the path inside it and what was expected, one
 * line per problem, e.g. `roundtable.yaml: worlds[0].agents[1]: unknown agent "carol" (agents: alice, bob)`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const location = await findConfigFile(options);
  if (location.path === undefined) {
    const parsed = validateConfig(defaultConfigData(options.env), {
      label: "built-in default config",
      env: options.env,
      builtInDefault: true,
    });
    return { ...parsed, source: "built-in default", origin: location.origin };
  }
  const label = displayPath(location.path, options.cwd);
  let text: string;
  try {
    text = await readFile(location.path, "utf8");
  } catch (error) {
    throw new ConfigError(`${label}: cannot read the config file: ${errorMessage(error)}`, { cause: error });
  }
  const parsed = parseConfig(text, { label, env: options.env });
  return { ...parsed, source: location.path, origin: location.origin };
}

export interface ParseConfigOptions {
  /** Names the file in messages. */
  label: string;
  env: Env;
}

/** {@link loadConfig} for text in hand (no file lookup). */
export function parseConfig(text: string, options: ParseConfigOptions): Omit<LoadedConfig, "source" | "origin"> {
  const { data, unsetVariables } = parseConfigText(text, options.label, options.env);
  return validateConfig(data ?? {}, { ...options, unsetVariables, builtInDefault: false });
}

interface ValidateOptions extends ParseConfigOptions {
  builtInDefault: boolean;
  unsetVariables?: Map<string, string[]>;
}

function validateConfig(data: unknown, options: ValidateOptions): Omit<LoadedConfig, "source" | "origin"> {
  const fail = (problems: ConfigProblem[]): never => {
    const lines = problems.map((problem) =>
      formatProblem(options.label, withUnsetNote(problem, options.unsetVariables)),
    );
    throw new ConfigError(lines.join("\n"));
  };
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    fail([
      {
        path: [],
        message: `expected a mapping at the top level (providers, agents, worlds, …), got ${describeValue(data)}`,
      },
    ]);
  }
  const result = configSchema.safeParse(data);
  if (!result.success) fail(problemsFromIssues(result.error.issues, configSchema, data));
  const config = applyEnvDefaults(result.data as Config, options.env);
  const problems = checkReferences(config, { allowMissingApiKeys: options.builtInDefault });
  if (problems.length > 0) fail(problems);
  return finishConfig(config);
}

/**
 * Last touches: a world without `workdir` gets `./worlds/<name>` (not beside the database); channels without a token
 * are left out; a channel with no `chats` sends every chat to the first world.
 */
function finishConfig(config: Config): Omit<LoadedConfig, "source" | "origin"> {
  const warnings: string[] = [];
  const { telegram, slack, discord, web } = config.channels;
  const channels: ChannelsConfig = web === undefined ? {} : { web };
  const firstWorld = config.worlds[0]?.name;
  const routeAll = (chats: Record<string, string>): Record<string, string> =>
    Object.keys(chats).length === 0 && firstWorld !== undefined ? { "*": firstWorld } : chats;
  const off = (platform: string): void => {
    warnings.push(`channels.${platform}: no token in the file or the environment, so ${platform} is off`);
  };
  if (telegram) {
    if (telegram.token === undefined) off("telegram");
    else channels.telegram = { ...telegram, chats: routeAll(telegram.chats) };
  }
  if (slack) {
    if (slack.botToken === undefined && slack.oauth === undefined) off("slack");
    else channels.slack = { ...slack, chats: routeAll(slack.chats) };
  }
  if (discord) {
    if (discord.token === undefined) off("discord");
    else channels.discord = { ...discord, chats: routeAll(discord.chats) };
  }
  const unconfiguredProviders = [...new Set(config.agents.map((agent) => agent.provider))].filter((name) => {
    const provider = config.providers[name];
    return provider?.type !== undefined && provider.apiKey === undefined && requiresApiKey(provider.type, provider);
  });
  if (unconfiguredProviders.length > 0) warnings.push(noProviderKeyMessage);
  const worlds = config.worlds.map((world) => ({ ...world, workdir: world.workdir ?? `./worlds/${world.name}` }));
  return { config: { ...config, worlds, channels }, warnings, unconfiguredProviders };
}

/**
 * Says which unset variables a problem comes from: those of the problem's own path, or of a
 * path its message names (an agent's provider with no API key names `providers.<name>.apiKey`,
 * which may be an unset `${OPENAI_KEY_TYPO}`).
 */
function withUnsetNote(problem: ConfigProblem, unset: Map<string, string[]> | undefined): ConfigProblem {
  const names = unset?.get(formatConfigPath(problem.path));
  if (names && names.length > 0) {
    const list = names.map((name) => `\${${name}}`).join(", ");
    return { ...problem, message: `${problem.message} (${list} ${names.length > 1 ? "are" : "is"} not set)` };
  }
  const named = [...(unset ?? [])].filter(([at]) => mentionsPath(problem.message, at));
  if (named.length === 0) return problem;
  const notes = named.map(([at, variables]) => {
    const list = variables.map((name) => `\${${name}}`).join(", ");
    return `${at} is ${list}, which ${variables.length > 1 ? "are" : "is"} not set`;
  });
  return { ...problem, message: `${problem.message} (${notes.join("; ")})` };
}

/** True when `message` names the config path `at` (not as the start of a longer path or word). */
function mentionsPath(message: string, at: string): boolean {
  if (at === "") return false;
  for (let index = message.indexOf(at); index >= 0; index = message.indexOf(at, index + 1)) {
    const after = message[index + at.length];
    if (after === undefined || !/[A-Za-z0-9_.[]/.test(after)) return true;
  }
  return false;
}

function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
