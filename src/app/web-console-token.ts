import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage, RoundtableError } from "../errors/roundtable-error.js";

/** Where the generated shared token is kept, under the working directory. */
function webConsoleTokenFile(cwd: string): string {
  return path.join(cwd, "data", "web-console-token");
}

/**
 * The generated token already kept under `cwd`, if any (read only, never created): a secret to
 * redact in logs and exports like the configured ones.
 */
export function keptWebConsoleToken(cwd: string): string | undefined {
  try {
    const token = readFileSync(webConsoleTokenFile(cwd), "utf8").trim();
    return token === "" ? undefined : token;
  } catch {
    return undefined;
  }
}

/** The web console's shared token and where it came from. */
export interface WebConsoleToken {
  token: string;
  /** `configured`: `WEB_CONSOLE_TOKEN` or `web.token`; `file`: generated and kept in {@link file}. */
  source: "configured" | "file";
  /** The token file (source `file`). */
  file?: string;
  /** A new token was generated just now. */
  created?: boolean;
}

/**
 * The shared token: the configured one, else the one kept in `./data/web-console-token`, else a
 * new random one written there (mode 0600, reused on later starts; two processes starting at
 * once agree on the first one written).
 */
export async function resolveWebConsoleToken(configured: string | undefined, cwd: string): Promise<WebConsoleToken> {
  if (configured !== undefined && configured.trim() !== "") return { token: configured, source: "configured" };
  const file = webConsoleTokenFile(cwd);
  try {
    const existing = await readToken(file);
    if (existing !== undefined) return { token: existing, source: "file", file };
    await mkdir(path.dirname(file), { recursive: true });
    const token = randomBytes(24).toString("base64url");
    try {
      await writeFile(file, `${token}\n`, { mode: 0o600, flag: "wx" });
      return { token, source: "file", file, created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const written = await readToken(file);
      if (written === undefined) throw error;
      return { token: written, source: "file", file };
    }
  } catch (error) {
    throw new RoundtableError(
      "config.invalid",
      `the web console's token file ${file} cannot be read or written (${errorMessage(error)}): set WEB_CONSOLE_TOKEN, or web.enabled: false`,
      { cause: error },
    );
  }
}

/** The token kept in `file` (made private to its owner when it was not), or undefined when there is none. */
async function readToken(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const token = text.trim();
  if (token === "") return undefined;
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  return token;
}

/** The host a browser uses for the service: `localhost` for a wildcard or loopback listen address. */
function browserHost(listenHost: string | undefined): string {
  const host = (listenHost ?? "").trim();
  if (host === "" || host === "0.0.0.0" || host === "::" || host === "127.0.0.1" || host === "::1") return "localhost";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/**
 * The web console's login address: opening it logs the browser in (the page reads the token
 * from the fragment, which browsers never send to a server). `roundtable start`, `roundtable
 * web-login` and `roundtable demo` print it.
 */
export function webLoginAddress(options: { host?: string; port: number; token: string }): string {
  return `http://${browserHost(options.host)}:${options.port}/login#token=${encodeURIComponent(options.token)}`;
}

/** The address without its token, for logs. */
export function webLoginAddressRedacted(options: { host?: string; port: number }): string {
  return `http://${browserHost(options.host)}:${options.port}/login`;
}
