import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { WorldSettings } from "../world/world-settings.js";

/** The world's tools directory (absolute), created when missing. Default `./data/worlds/<name>`. */
export async function resolveWorkdir(world: Pick<WorldSettings, "name" | "workdir">): Promise<string> {
  const directory = path.resolve(world.workdir ?? path.join("data", "worlds", world.name));
  await mkdir(directory, { recursive: true });
  return directory;
}
