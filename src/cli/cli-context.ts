/** What a command may touch of the outside world, so tests and `main.ts` can hand in their own. */
export interface CliContext {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The real process. */
export function processContext(): CliContext {
  return { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Exit codes: 0 done, 1 failed (bad config, a failed check), 2 bad usage. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;
