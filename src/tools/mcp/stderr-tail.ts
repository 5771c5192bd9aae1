/**
 * What a stdio server wrote to stderr, kept to explain why it failed: its first lines, the lines
 * that say what went wrong (`Error: Cannot find module '/srv/mcp/notes.js'`, a Python
 * `ModuleNotFoundError: …`), each whole, and its last lines. Stack frames (`    at …`, `File "…",
 * line 3`) and lines of mere punctuation are left out: after a Node crash the last lines are
 * frames and `Node.js v24`, and the line naming the missing file comes before them.
 */
export class StderrTail {
  private readonly head: string[] = [];
  private readonly errors: string[] = [];
  private tail: string[] = [];

  constructor(
    private readonly headLines = 2,
    private readonly errorLines = 3,
    private readonly tailLines = 3,
  ) {}

  push(raw: string): void {
    const line = raw.trim();
    if (!isMeaningful(line)) return;
    if (this.head.length < this.headLines) this.head.push(cut(line, 300));
    if (looksLikeError(line) && this.errors.length < this.errorLines) this.errors.push(cut(line, 2000));
    this.tail.push(cut(line, 300));
    if (this.tail.length > this.tailLines) this.tail = this.tail.slice(-this.tailLines);
  }

  /** ` (stderr: …)` with the lines that matter, or nothing. */
  describe(): string {
    const shown: string[] = [];
    const add = (line: string): void => {
      if (!shown.includes(line)) shown.push(line);
    };
    for (const line of this.head) add(line);
    for (const line of this.errors) add(line);
    // Without a line that names an error, the last lines say the most.
    if (this.errors.length === 0) for (const line of this.tail) add(line);
    return shown.length === 0 ? "" : ` (stderr: ${shown.join(" | ")})`;
  }
}

/** Not blank, not a stack frame, not only punctuation (Node's `^` under `throw err;`, a `}`). */
function isMeaningful(line: string): boolean {
  if (line === "" || /^[\^~{}[\]();,.|\s-]+$/.test(line)) return false;
  if (/^at\s/.test(line) || /^File ".*", line \d+/.test(line)) return false;
  return !/^Node\.js v\d/.test(line) && line !== "throw err;";
}

/** `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`, `error: …`, `fatal: …`, `panic: …`. */
function looksLikeError(line: string): boolean {
  return /^(?:[\w.]*(?:Error|Exception)\b|error\b|fatal\b|panic\b)/i.test(line);
}

function cut(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
