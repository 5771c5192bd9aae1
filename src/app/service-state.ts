import path from "node:path";
import { parseDatabaseUrl } from "../storage/prisma/database-target.js";
import type { ServiceState } from "../tools/shell/mount-sandbox.js";

/**
 * The service's own state, as a sandboxed `shell_cmd` call must not see it
 * (`src/tools/shell/mount-sandbox.ts`): the SQLite file and its companions, the config file,
 * the web console's token file and the default `./data` directory.
 */

/** Where the service keeps its state: the database URL, the config file and its working directory. */
export interface ServiceStateSources {
  databaseUrl?: string | undefined;
  /** The config file's path, when one was read. */
  configPath?: string | undefined;
  /** The service's working directory (default: the process's). */
  cwd?: string | undefined;
}

/** The paths {@link ServiceState} holds for a service started with `sources`. */
export function serviceState(sources: ServiceStateSources): ServiceState {
  const cwd = path.resolve(sources.cwd ?? process.cwd());
  const files: string[] = [path.join(cwd, "data", "web-console-token")];
  try {
    const target = parseDatabaseUrl(sources.databaseUrl, cwd);
    if (target.provider === "sqlite") {
      for (const suffix of ["", "-wal", "-shm", "-journal", ".lock"]) files.push(`${target.path}${suffix}`);
    }
  } catch {
    // Not a database URL this service could open: nothing of it to hide.
  }
  if (sources.configPath !== undefined) files.push(path.resolve(cwd, sources.configPath));
  return { files, directories: [path.join(cwd, "data")] };
}
