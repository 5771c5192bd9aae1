/**
 * Loading a policy module (`hooks.module`, docs/hooks.md): ESM `.js`, `.mjs` or `.ts` (Node's own
 * type stripping, no build step), exporting `onEvent` named or as the default export's member.
 * A module that does not load is a config error naming the file and the cause, in one line.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, errorMessage } from "../errors/roundtable-error.js";
import type { OnEvent } from "../world/policy/hook-events.js";

/** A loaded module: where it came from (for log lines) and its `onEvent`. */
export interface HookModule {
  /** The path as configured (what log lines and errors name). */
  file: string;
  onEvent: OnEvent;
  timeoutMs: number;
}

/** Load `file` (relative to the working directory) and find its `onEvent`. */
export async function loadHookModule(file: string, timeoutMs: number, cwd = process.cwd()): Promise<HookModule> {
  const absolute = path.resolve(cwd, file);
  let loaded: Record<string, unknown>;
  try {
    // A variable specifier: the bundle leaves it to Node, which strips a .ts file's types itself.
    loaded = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`hooks module ${file} could not be loaded: ${oneLine(errorMessage(error))}`, {
      cause: error,
    });
  }
  const fallback = loaded.default as Record<string, unknown> | undefined;
  const onEvent =
    typeof loaded.onEvent === "function"
      ? loaded.onEvent
      : typeof fallback?.onEvent === "function"
        ? fallback.onEvent.bind(fallback)
        : undefined;
  if (typeof onEvent !== "function")
    throw new ConfigError(`hooks module ${file} could not be loaded: it exports no onEvent function`);
  return { file, onEvent: onEvent as OnEvent, timeoutMs };
}

function oneLine(text: string): string {
  const first = text.split("\n").find((line) => line.trim() !== "") ?? text;
  return first.trim();
}
