#!/usr/bin/env node
import { enableCompileCache } from "node:module";

// V8 keeps the code it compiled for each module in a cache on disk (`$NODE_COMPILE_CACHE`, else
// `node-compile-cache` in the system's temporary folder; `NODE_DISABLE_COMPILE_CACHE=1` turns it
// off), so the second and later starts compile less. It covers only modules loaded after this
// call, hence the dynamic imports below. A cache that cannot be written is skipped, not an error.
enableCompileCache();
const { takeOverProcessWarnings } = await import("./process-warnings.js");
takeOverProcessWarnings();
const { processContext } = await import("./cli-context.js");
const { runCli } = await import("./run-cli.js");

/** How long a finished command may wait for open handles (sockets, timers) before the process exits anyway. */
const lingerMs = 3000;

const code = await runCli(process.argv.slice(2), processContext());
process.exitCode = code;
// Normally the process ends here by itself; if some library left a handle open, end it anyway.
setTimeout(() => process.exit(code), lingerMs).unref();
