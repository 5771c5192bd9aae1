/** A line opening a fenced code block: its marker (``` or ~~~, three or more) and language. */
const fenceOpen = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;

/** The fence marker that `line` opens, if it opens one. */
export function fenceOpener(line: string): { marker: string; language: string } | undefined {
  const match = fenceOpen.exec(line);
  if (!match) return undefined;
  return { marker: match[1] ?? "```", language: match[2] ?? "" };
}

/** Is `line` the closing fence of a block opened by `opener` (e.g. "```")? */
export function closesFence(line: string, opener: string): boolean {
  const trimmed = line.trim();
  const marker = opener[0] ?? "`";
  return trimmed.length >= opener.length && [...trimmed].every((char) => char === marker);
}

/** A fenced code block still open at a position: its closing marker, its opening line (trimmed) and where that line starts. */
export interface OpenFence {
  marker: string;
  line: string;
  start: number;
}

/** The fence still open at `position` in `text` (a cut there must close it and reopen it after). */
export function fenceOpenAt(text: string, position: number): OpenFence | undefined {
  let open: OpenFence | undefined;
  let lineStart = 0;
  while (lineStart < position) {
    const newline = text.indexOf("\n", lineStart);
    const line = text.slice(lineStart, newline < 0 ? text.length : newline);
    if (open) {
      if (closesFence(line, open.marker)) open = undefined;
    } else {
      const opener = fenceOpener(line);
      if (opener) open = { marker: opener.marker, line: line.trim(), start: lineStart };
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return open;
}
