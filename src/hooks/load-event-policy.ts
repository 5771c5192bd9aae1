import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { EventPolicy } from "../world/policy/event-policy.js";
import { type HookModule, loadHookModule } from "./load-hook-module.js";
import { ModulePolicy } from "./module-policy.js";

/**
 * The configured policy modules (`hooks` at the top level and per world, docs/hooks.md), loaded
 * once; undefined when none is configured. A module that does not load throws a `ConfigError`
 * naming the file and the cause (a start error; `roundtable check` reports it).
 */
export async function loadEventPolicy(
  config: Pick<Config, "hooks" | "worlds">,
  logger: Logger,
  cwd = process.cwd(),
): Promise<EventPolicy | undefined> {
  const topLevel = config.hooks ? await loadHookModule(config.hooks.module, config.hooks.timeout, cwd) : undefined;
  const ofWorlds = new Map<string, HookModule>();
  for (const world of config.worlds) {
    if (world.hooks) ofWorlds.set(world.name, await loadHookModule(world.hooks.module, world.hooks.timeout, cwd));
  }
  if (!topLevel && ofWorlds.size === 0) return undefined;
  return new ModulePolicy(topLevel, ofWorlds, logger.child({ component: "hooks" }));
}
