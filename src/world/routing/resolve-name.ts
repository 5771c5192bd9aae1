/** The configured spelling of `name` among `names`, compared case-insensitively. */
export function resolveName(name: string, names: readonly string[]): string | undefined {
  const key = name.replace(/^@/, "").toLowerCase();
  return names.find((candidate) => candidate.toLowerCase() === key);
}
