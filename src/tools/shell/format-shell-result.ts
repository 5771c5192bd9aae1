/** What a finished process left: how it ended and its (capped) output. */
export interface ProcessOutput {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The text the model reads for a finished command, in one fixed format:
 * `exit code: N`, then `stdout:` and `stderr:` each followed by the output (or `(empty)`).
 */
export function formatShellResult(output: ProcessOutput): string {
  const status =
    output.exitCode !== null
      ? `exit code: ${output.exitCode}`
      : `exit code: none (ended by signal ${output.signal ?? "?"})`;
  return [status, formatStreams(output)].join("\n");
}

/** The `stdout:` and `stderr:` sections alone (also used for a timeout's partial output). */
export function formatStreams(output: Pick<ProcessOutput, "stdout" | "stderr">): string {
  return [section("stdout", output.stdout), section("stderr", output.stderr)].join("\n");
}

function section(name: string, text: string): string {
  if (text === "") return `${name}: (empty)`;
  return `${name}:\n${text.endsWith("\n") ? text.slice(0, -1) : text}`;
}
