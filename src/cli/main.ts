#!/usr/bin/env node
import { processContext } from "./cli-context.js";
import { runCli } from "./run-cli.js";

/** How long a finished command may wait for open handles (sockets, timers) before the process exits anyway. */
const lingerMs = 3000;

const code = await runCli(process.argv.slice(2), processContext());
process.exitCode = code;
// Normally the process ends here by itself; if some library left a handle open, end it anyway.
setTimeout(() => process.exit(code), lingerMs).unref();
