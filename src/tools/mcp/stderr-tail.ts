/** The last lines a stdio server wrote to stderr, to explain why it failed. */
export class StderrTail {
  private lines: string[] = [];

  constructor(private readonly maxLines = 5) {}

  push(line: string): void {
    this.lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }

  /** ` (stderr: …)` with the last lines, or nothing. */
  describe(): string {
    return this.lines.length === 0 ? "" : ` (stderr: ${this.lines.join(" | ")})`;
  }
}
