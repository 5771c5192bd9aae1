import { resolveWebConsoleToken, webLoginAddress } from "../app/web-console-token.js";
import { loadConfig } from "../config/load-config.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { parsePort } from "./parse-port.js";

export const webLoginCommand: CliCommand = {
  name: "web-login",
  summary: "Print the web console's login address (with its shared token)",
  help: `Usage: roundtable web-login [--config FILE] [--port N]

Prints the address that logs a browser into the web console, the same line \`roundtable
start\` prints:
  web console: open http://localhost:8080/login#token=…
The token is WEB_CONSOLE_TOKEN (or web.token in the config) when set, else the one kept in
./data/web-console-token under the working directory (generated now if there is none yet,
and used by the next start). Run it where you run \`roundtable start\`. People listed under
channels.web.users log in with their own tokens instead.

Options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  --port N        The service's HTTP port (default: $PORT, else 8080)
  -h, --help      Show this help

Environment: WEB_CONSOLE_TOKEN, PORT, HOST (as for start).`,
  options: { port: { type: "string" } },
  async run(values, context) {
    const loaded = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    if (!loaded.config.web.enabled) {
      context.stderr.write("roundtable web-login: the web console is off (web.enabled: false)\n");
      return exitCodes.failed;
    }
    const port = parsePort(typeof values.port === "string" ? values.port : undefined, context.env);
    const resolved = await resolveWebConsoleToken(loaded.config.web.token, context.cwd);
    const host = context.env.HOST?.trim();
    const address = webLoginAddress({ ...(host ? { host } : {}), port, token: resolved.token });
    context.stdout.write(`web console: open ${address}\n`);
    return exitCodes.ok;
  },
};
