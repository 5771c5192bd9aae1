/**
 * A service process that exits in the middle of a shell_cmd call (as `roundtable chat` or
 * `start` do after a second Ctrl-C): argv[2] is the work directory, argv[3] the isolation
 * (`pid-namespace` or `marker`). The call starts a sleep that called setsid and records it in
 * `escaped.pid`; once it is there this process exits.
 */
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { shellConfigSchema } from "../../src/config/schema.js";
import { ShellToolSource } from "../../src/tools/shell/shell-tool-source.js";
import { readRecordedPid, recordPid } from "./recorded-pid.js";

const workdir = process.argv[2] ?? ".";
const shell = new ShellToolSource(shellConfigSchema.parse({ timeout: "60s" }), {
  isolation: process.argv[3] === "marker" ? "marker" : "auto",
});
void shell.call(
  "shell_cmd",
  { command: "sh", args: ["-c", `setsid sleep 300 & ${recordPid("$!", "escaped.pid")}\nsleep 300`] },
  { workdir, signal: new AbortController().signal, timeoutMs: 60_000 },
);
const file = path.join(workdir, "escaped.pid");
while (readRecordedPid(file) === undefined) await sleep(10);
process.exit(0);
