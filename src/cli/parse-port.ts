import { ConfigError } from "../errors/roundtable-error.js";
import { UsageError } from "./usage-error.js";

/** The port when neither `--port` nor `PORT` says. */
const defaultPort = 8080;

/** `--port`, else `PORT`, else 8080; 0 picks a free port. A bad `--port` is bad usage, a bad `PORT` a config error. */
export function parsePort(flag: string | undefined, env: Record<string, string | undefined>): number {
  const [source, text] = flag !== undefined ? ["--port", flag] : ["PORT", env.PORT?.trim()];
  if (text === undefined || text === "") return defaultPort;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    const message = `${source}: expected a port number from 0 to 65535, got ${JSON.stringify(text)}`;
    throw flag !== undefined ? new UsageError(message) : new ConfigError(message);
  }
  return port;
}
