import { access } from "node:fs/promises";
import path from "node:path";
import { RoundtableError } from "../errors/roundtable-error.js";

/** Where the config comes from. */
export type ConfigOrigin = "--config" | "ROUNDTABLE_CONFIG" | "./roundtable.yaml" | "built-in default";

export interface ConfigFileLocation {
  /** Absolute path, or `undefined` for the built-in default. */
  path: string | undefined;
  origin: ConfigOrigin;
}

/** The file `./roundtable.yaml` is looked for under this name in the working directory. */
const defaultConfigFileName = "roundtable.yaml";

/**
 * `--config <file>`, else `ROUNDTABLE_CONFIG`, else `./roundtable.yaml` if present, else the
 * built-in default. A file named explicitly must exist.
 */
export async function findConfigFile(options: {
  configPath?: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
}): Promise<ConfigFileLocation> {
  const explicit: Array<[string | undefined, ConfigOrigin]> = [
    [options.configPath, "--config"],
    [options.env.ROUNDTABLE_CONFIG, "ROUNDTABLE_CONFIG"],
  ];
  for (const [given, origin] of explicit) {
    if (given === undefined || given === "") continue;
    const absolute = path.resolve(options.cwd, given);
    if (!(await exists(absolute))) {
      throw new RoundtableError("config.not-found", `${given}: config file not found (from ${origin})`);
    }
    return { path: absolute, origin };
  }
  const local = path.join(options.cwd, defaultConfigFileName);
  if (await exists(local)) return { path: local, origin: "./roundtable.yaml" };
  return { path: undefined, origin: "built-in default" };
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
