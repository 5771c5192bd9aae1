import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningService } from "../../src/app/service-entry.js";
import { startService } from "../../src/app/start-service.js";
import { loadConfig } from "../../src/config/load-config.js";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { capturedLogger, type LogLine } from "../tools/captured-logger.js";
import type { FakeServerOptions } from "../fakes/model-fake-server.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";

export interface WebService {
  service: RunningService;
  fake: FakeModelServer;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  logs: LogLine[];
  directory: string;
  /** The shared token (generated into `<directory>/data/web-console-token` unless WEB_CONSOLE_TOKEN was given). */
  token: string;
  /** Log in with a token through the form as a browser does; returns the `Cookie` header value. */
  login(token?: string): Promise<string>;
  close(): Promise<void>;
}

/** The YAML of a world `team` with agent `alice` (shell_cmd, approval needed) on the OpenAI fake. */
export function teamConfig(
  directory: string,
  extra: string[] = [],
  agentExtra = "",
  worldExtra = "",
  tools: readonly string[] = ["shell_cmd"],
): string {
  return [
    "providers:",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
    "  openai: { apiKey: sk-test, baseUrl: ${OPENAI_BASE_URL} }",
    "agents:",
    `  - { name: alice, provider: openai, model: gpt-4.1, systemPrompt: You are alice., tools: ${JSON.stringify(tools)}${agentExtra} }`,
    "worlds:",
    `  - { name: team, agents: [alice], defaultAgent: alice, workdir: ${JSON.stringify(directory)}${worldExtra} }`,
    ...extra,
    "",
  ].join("\n");
}

/** The real service (`startService`, as `roundtable start` runs it) in this process, on SQLite and the OpenAI fake. */
export async function startWebService(
  options: {
    extraConfig?: string[];
    worldConfig?: string;
    env?: Record<string, string>;
    agentTools?: string[];
    /** How the model fake answers a call when its script is empty (a model that reads its request). */
    respond?: FakeServerOptions["respond"];
  } = {},
) {
  const directory = mkdtempSync(path.join(tmpdir(), "rt-web-"));
  const fake = await startOpenAIFake({
    apiKey: "sk-test",
    ...(options.respond === undefined ? {} : { respond: options.respond }),
  });
  const configPath = path.join(directory, "roundtable.yaml");
  writeFileSync(configPath, teamConfig(directory, options.extraConfig, "", options.worldConfig, options.agentTools));
  const env = { OPENAI_BASE_URL: fake.baseUrl, ...options.env };
  const loaded = await loadConfig({ configPath, env, cwd: directory });
  const { logger, lines } = capturedLogger();
  const databaseUrl = `file:${path.join(directory, "roundtable.db")}`;
  await migrateDatabase({ databaseUrl, logger });
  const service = await startService({
    config: loaded.config,
    configSource: configPath,
    databaseUrl,
    port: 0,
    cwd: directory,
    logger,
  });
  const origin = `http://127.0.0.1:${service.port}`;
  const token = decodeURIComponent(/#token=(.+)$/.exec(service.webLoginAddress ?? "")?.[1] ?? "");
  const web: WebService = {
    service,
    fake,
    port: service.port,
    origin,
    logs: lines,
    directory,
    token,
    login: (as = token) => logIn(origin, as),
    async close() {
      await service.stop();
      await fake.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return web;
}

/** The form's POST to `/login`, as a browser sends it. */
export function postLogin(origin: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin", ...headers },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
}

/** Log in with `token`; the session cookie as a `Cookie` header value. */
export async function logIn(origin: string, token: string): Promise<string> {
  const response = await postLogin(origin, { token });
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (response.status !== 303 || !cookie.startsWith("roundtable_console=")) {
    throw new Error(`login refused: ${response.status} ${await response.text()}`);
  }
  return cookie;
}

/** A same-origin JSON POST as the page makes it. */
export function postJson(origin: string, pathname: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${origin}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", ...headers },
    body: JSON.stringify(body),
  });
}

/** Reads a Server-Sent Events stream as parsed `data:` JSON values. */
export class EventReader {
  readonly events: unknown[] = [];
  private readonly controller = new AbortController();
  private done: Promise<void> | undefined;

  async open(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(url, { headers, signal: this.controller.signal });
    const body = response.body;
    if (response.ok && body) {
      this.done = (async () => {
        const decoder = new TextDecoder();
        let buffer = "";
        try {
          for await (const chunk of body) {
            buffer += decoder.decode(chunk, { stream: true });
            let end = buffer.indexOf("\n\n");
            while (end >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              for (const line of frame.split("\n")) {
                if (line.startsWith("data: ")) this.events.push(JSON.parse(line.slice(6)));
              }
              end = buffer.indexOf("\n\n");
            }
          }
        } catch {
          // aborted
        }
      })();
    }
    return response;
  }

  close(): Promise<void> {
    this.controller.abort();
    return this.done ?? Promise.resolve();
  }
}
