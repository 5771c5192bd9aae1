import { PassThrough } from "node:stream";
import { runCli } from "../../src/cli/run-cli.js";

/**
 * A CLI command run in this process (`runCli`, as `bin/roundtable.js` calls it) with empty
 * stdin: its exit code and what it printed. For commands whose process adds nothing to prove;
 * `run-roundtable.ts` spawns the real process where it does.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await runCli(args, {
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
    stdin: new PassThrough(),
    stdout,
    stderr,
  });
  return { code, stdout: out, stderr: err };
}
