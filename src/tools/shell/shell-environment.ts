/**
 * The environment a command gets: only the allowlisted variables of the service's own
 * environment, so secrets such as provider keys never reach a command. An entry ending in `*`
 * allows a prefix (`LC_*`).
 */
export function allowedEnvironment(
  allowlist: readonly string[],
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const exact = new Set(allowlist.filter((name) => !name.endsWith("*")));
  const prefixes = allowlist.filter((name) => name.endsWith("*")).map((name) => name.slice(0, -1));
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) environment[name] = value;
  }
  return environment;
}
