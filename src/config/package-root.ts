import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's root folder (the one with its package.json), found from this file: the same
 * whether the code runs from `src/` (tests, tsx) or compiled from `dist/src/`.
 */
export function packageRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(directory, "package.json"))) {
    const parent = path.dirname(directory);
    // Programming error (a broken install): the code always ships inside its package.
    if (parent === directory) throw new Error("roundtable: package.json not found above the code");
    directory = parent;
  }
  return directory;
}
