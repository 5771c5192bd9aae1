import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSecrets } from "../../src/config/config-secrets.js";
import { configSchema } from "../../src/config/schema.js";
import { createLogger } from "../../src/log/logger.js";
import { environmentSecrets, secretRedactor } from "../../src/log/redact-secrets.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { collect, spawnRoundtable } from "./run-roundtable.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-secrets-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const botToken = "123456789:AAFakeTokenForTheLogTestOnly_abcdefghijk";
const databasePassword = "hunter2-database-secret";

describe("secrets in logs", () => {
  it("polling against a Telegram port that closed logs grammY's errors, never the bot token", async () => {
    const fake = await FakeTelegramApi.start([
      { token: botToken, username: "roundtable_bot", firstName: "Roundtable" },
    ]);
    // An agent with a tool that needs approval, in the one world every Telegram chat reaches.
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      "agents:\n  - { name: alice, provider: openai, model: gpt-4.1, tools: [shell_cmd] }\nworlds:\n  - { name: team, agents: [alice] }\n",
    );
    const child = spawnRoundtable(["start"], {
      cwd: directory,
      env: {
        PORT: "0",
        LOG_LEVEL: "debug",
        DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
        OPENAI_API_KEY: "sk-test-key-for-logs",
        TELEGRAM_BOT_TOKEN: botToken,
        TELEGRAM_API_ROOT: fake.apiRoot,
      },
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const run = collect(child);
    const waitFor = async (pattern: RegExp) => {
      const started = Date.now();
      while (!pattern.test(stderr) && Date.now() - started < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await waitFor(/roundtable started/);
    await fake.close();
    // Now every getUpdates fails on a closed port; grammY's HttpError names the Bot API URL.
    await waitFor(/telegram polling failed/);
    child.kill("SIGTERM");
    const log = (await run).stderr;
    expect(log).toContain("telegram polling failed");
    // start warns that anyone reaching the bot may approve their own calls.
    expect(log).toContain("world team: anyone who can reach the bot on telegram may talk to its agents and approve");
    // No HOST, no METRICS_TOKEN: start says /metrics is public.
    expect(log).toContain("/metrics is public: HOST is 0.0.0.0 and METRICS_TOKEN is not set");
    expect(log).toContain("/bot[redacted]/getUpdates");
    expect(log).not.toContain(botToken);
    expect(log).not.toContain(botToken.split(":")[1]);
    expect(log).not.toContain("sk-test-key-for-logs");
  });

  it("HOST sets the listen address and METRICS_TOKEN guards /metrics", async () => {
    const child = spawnRoundtable(["start"], {
      cwd: directory,
      env: {
        PORT: "0",
        HOST: "127.0.0.1",
        METRICS_TOKEN: "metrics-token-for-the-test",
        DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
        OPENAI_API_KEY: "sk-test",
      },
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const run = collect(child);
    const started = Date.now();
    while (!/HTTP server listening/.test(stderr) && Date.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listening = stderr
      .split("\n")
      .filter((line) => line.includes("HTTP server listening"))
      .map((line) => JSON.parse(line) as { host: string; port: number })[0];
    try {
      expect(listening?.host).toBe("127.0.0.1");
      const base = `http://127.0.0.1:${listening?.port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const allowed = await fetch(`${base}/metrics`, {
        headers: { authorization: "Bearer metrics-token-for-the-test" },
      });
      expect(allowed.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("metrics-token-for-the-test");
    expect(result.stderr).not.toContain("/metrics is public");
  });

  it("the redactor takes out known values and secret-shaped text", () => {
    const redact = secretRedactor([databasePassword]);
    const line = JSON.stringify({
      err: {
        message: `Network request for 'getMe' failed! https://api.telegram.org/bot${botToken}/getMe`,
        url: `postgresql://roundtable:${databasePassword}@db:5432/roundtable`,
        header: "Authorization: Bearer abcdefghijklmnop",
        slack: "xoxb-1234567890-abcdefghij",
      },
    });
    const redacted = redact(line);
    expect(redacted).not.toContain(botToken);
    expect(redacted).not.toContain(databasePassword);
    expect(redacted).not.toContain("abcdefghijklmnop");
    expect(redacted).not.toContain("xoxb-1234567890");
    expect(redacted).toContain("https://api.telegram.org/bot[redacted]/getMe");
    expect(redacted).toContain("postgresql://roundtable:[redacted]@db:5432/roundtable");
  });

  it("closes the redactor's gaps: web.token from the file, MCP args in a failed spawn, OTLP headers, key shapes", () => {
    const config = configSchema.parse({
      agents: [{ name: "alice", provider: "openai", model: "gpt-4.1" }],
      worlds: [{ name: "team", agents: ["alice"] }],
      web: { token: "web-token-from-the-config-file" },
      tools: {
        mcpServers: { vault: { command: "vault-mcp", args: ["--api-key", "mcp-argument-secret", "--verbose"] } },
      },
    });
    const env = {
      OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=otel-header-secret,authorization=Basic%20b3RlbDpzZWNyZXQ=",
    };
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      secrets: [...configSecrets(config), ...environmentSecrets(env)],
      destination: { write: (line: string) => lines.push(line) },
    });
    const spawnError = Object.assign(new Error("spawn vault-mcp ENOENT"), {
      code: "ENOENT",
      spawnargs: ["--api-key", "an-unconfigured-argument-secret"],
    });
    logger.error({ err: spawnError }, "MCP server vault failed to start");
    logger.info(
      { token: "web-token-from-the-config-file", headers: env.OTEL_EXPORTER_OTLP_HEADERS },
      "web-token-from-the-config-file mcp-argument-secret otel-header-secret Basic b3RlbDpzZWNyZXQ=",
    );
    logger.info(
      "keys: sk-ant-api03-abcdefghijklmnop ghp_abcdefghijklmnopqrstuvwxyz0123 AIzaSyA1234567890abcdefghijklmnopqrstu",
    );
    const log = lines.join("");
    for (const secret of [
      "web-token-from-the-config-file",
      "mcp-argument-secret",
      "an-unconfigured-argument-secret",
      "otel-header-secret",
      "b3RlbDpzZWNyZXQ=",
      "sk-ant-api03-abcdefghijklmnop",
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
      "AIzaSyA1234567890abcdefghijklmnopqrstu",
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain("MCP server vault failed to start");
    expect(log).toContain("keys: [redacted] [redacted] [redacted]");
  });
});
