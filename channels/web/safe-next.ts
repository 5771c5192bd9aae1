/**
 * Where to go after the login: a path on this site, else `/`. Refused: anything not starting
 * with one `/` (schemes, `//host`), a backslash anywhere (`/\host` is `//host` to browsers),
 * control characters and whitespace (browsers drop tabs and newlines: `/\t/evil.example/`
 * would become `//evil.example/`), whatever a URL parser resolves to another origin, and a
 * path that dot segments fold into `//host`.
 */
export function safeNext(next: string | null | undefined): string {
  if (next === null || next === undefined || next === "") return "/";
  if (!next.startsWith("/") || next.startsWith("//")) return "/";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\\\s\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(next)) return "/";
  const base = "http://roundtable.invalid";
  let resolved: URL;
  try {
    resolved = new URL(next, base);
  } catch {
    return "/";
  }
  if (resolved.origin !== base) return "/";
  // Dot segments can fold into a leading `//` (`/a/..//evil.example/`): a browser reads that as
  // another host, so the resolved path is checked again.
  if (resolved.pathname.startsWith("//")) return "/";
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
