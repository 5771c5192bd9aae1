import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { WorldSettings } from "../world/world-settings.js";

/**
 * The world's tools directory (absolute), created when missing. Default `./worlds/<name>`: not
 * inside `./data`, where the database lives, so a tool's working directory never starts beside it.
 */
export async function resolveWorkdir(world: Pick<WorldSettings, "name" | "workdir">): Promise<string> {
  const directory = path.resolve(world.workdir ?? path.join("worlds", world.name));
  await mkdir(directory, { recursive: true });
  return directory;
}
