import { mkdir, realpath, stat } from "node:fs/promises";
import path from "node:path";

export type ConfinedDirectory = { ok: true; path: string } | { ok: false; problem: string };

/**
 * The directory a command runs in: `requested` taken relative to `workdir` (created when
 * missing), which it may not leave, neither by `..`, by an absolute path elsewhere, nor by a
 * symbolic link that points out. Returns the real path, or the problem in words for the model.
 */
export async function confineDirectory(workdir: string, requested: string | undefined): Promise<ConfinedDirectory> {
  const base = path.resolve(workdir);
  await mkdir(base, { recursive: true });
  const root = await realpath(base);
  if (requested === undefined || requested === "" || requested === ".") return { ok: true, path: root };
  const candidate = path.resolve(base, requested);
  if (!isInside(base, candidate) && !isInside(root, candidate)) {
    return { ok: false, problem: `cwd ${JSON.stringify(requested)} is outside the working directory` };
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return { ok: false, problem: `cwd ${JSON.stringify(requested)} does not exist in the working directory` };
  }
  if (!isInside(root, real)) {
    return {
      ok: false,
      problem: `cwd ${JSON.stringify(requested)} leads outside the working directory (through a symbolic link)`,
    };
  }
  if (!(await stat(real)).isDirectory()) {
    return { ok: false, problem: `cwd ${JSON.stringify(requested)} is not a directory` };
  }
  return { ok: true, path: real };
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}
