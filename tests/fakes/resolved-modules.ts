import { registerHooks } from "node:module";

/**
 * Records the URL of every module Node resolves from now on in this process (for children that
 * check what a fresh process loads); the list grows as modules load.
 */
export function recordResolvedModules(): readonly string[] {
  const resolved: string[] = [];
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      resolved.push(result.url);
      return result;
    },
  });
  return resolved;
}
