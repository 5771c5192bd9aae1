import type { Config } from "../../config/schema.js";
import { errorMessage } from "../../errors/roundtable-error.js";
import { loadHookModule } from "../../hooks/load-hook-module.js";
import type { CheckRow } from "./check-row.js";

/** `roundtable check`: every configured policy module is loaded (nothing of it is called). */
export async function checkHooks(config: Pick<Config, "hooks" | "worlds">, cwd: string): Promise<CheckRow[]> {
  const modules = [
    ...(config.hooks ? [{ name: "hooks", hooks: config.hooks }] : []),
    ...config.worlds.flatMap((world) => (world.hooks ? [{ name: `hooks ${world.name}`, hooks: world.hooks }] : [])),
  ];
  return Promise.all(
    modules.map(async ({ name, hooks }): Promise<CheckRow> => {
      try {
        await loadHookModule(hooks.module, hooks.timeout, cwd);
        return { name, status: "ok", detail: `${hooks.module} loads and exports onEvent` };
      } catch (error) {
        return { name, status: "FAIL", detail: errorMessage(error) };
      }
    }),
  );
}
