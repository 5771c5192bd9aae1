/** Lowercases names and keeps the first of each, in order: names compare case-insensitively. */
export function uniqueNames(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const name of names) seen.add(name.toLowerCase());
  return [...seen];
}
