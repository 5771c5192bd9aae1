import type { Logger } from "../log/logger.js";

/**
 * Deprecations that dependencies trigger and a user can do nothing about: `punycode` (DEP0040,
 * through whatwg-url in SDKs' fetch polyfills) and `url.parse()` (DEP0169). Node would print
 * them as raw lines among the JSON logs and above `check`'s table.
 */
const thirdPartyDeprecations = new Set(["DEP0040", "DEP0169"]);

let sink: Logger | undefined;
let output: NodeJS.WritableStream = process.stderr;

/**
 * Replaces Node's own printing of process warnings (called once, at the CLI's start): known
 * third-party deprecations are dropped; any other warning goes to the command's logger once it
 * has one (`routeProcessWarnings`), else to stderr as one line without a stack.
 */
export function takeOverProcessWarnings(stderr: NodeJS.WritableStream = process.stderr): void {
  output = stderr;
  process.removeAllListeners("warning");
  process.on("warning", onWarning);
}

/** From now on warnings are log lines of `logger`. */
export function routeProcessWarnings(logger: Logger): void {
  sink = logger;
}

function onWarning(warning: Error & { code?: string }): void {
  if (warning.code !== undefined && thirdPartyDeprecations.has(warning.code)) return;
  const fields = { name: warning.name, ...(warning.code === undefined ? {} : { code: warning.code }) };
  if (sink) sink.warn({ warning: fields }, `process warning: ${warning.message}`);
  else
    output.write(`roundtable: warning: ${warning.name}${warning.code ? ` ${warning.code}` : ""}: ${warning.message}\n`);
}
