/**
 * A service that is not root (run by tests/tools/shell-sandbox.test.ts as another user): one
 * `shell_cmd` call in the sandbox `argv[2]` of a layout under `argv[3]`; prints the isolation
 * and the call's outcome as JSON lines.
 */
import path from "node:path";
import { serviceState } from "../../src/app/service-state.js";
import { shellConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { prepareCallOutbox } from "../../src/tools/outbox-files.js";
import { ShellToolSource } from "../../src/tools/shell/shell-tool-source.js";

const [mode, root, script] = process.argv.slice(2) as [string, string, string];
const workdir = path.join(root, "data", "worlds", "main");
const source = new ShellToolSource(shellConfigSchema.parse({ sandbox: mode }), {
  state: serviceState({ cwd: root, databaseUrl: `file:${path.join(root, "data", "roundtable.db")}` }),
});
const outbox = await prepareCallOutbox(workdir, "call-1", silentLogger());
const outcome = await source.call(
  "shell_cmd",
  { command: "sh", args: ["-c", script] },
  { workdir, outbox, signal: new AbortController().signal, timeoutMs: 20_000 },
);
process.stdout.write(`${JSON.stringify({ isolation: source.isolation })}\n${JSON.stringify(outcome)}\n`);
