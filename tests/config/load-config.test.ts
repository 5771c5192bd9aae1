import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { noProviderKeyMessage } from "../../src/config/default-config.js";
import { loadConfig, parseConfig, resolveDatabaseUrl } from "../../src/config/load-config.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-config-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const fixtures = path.resolve(import.meta.dirname, "../fixtures/config");

function worldFile(world: string): string {
  return `agents:\n  - { name: alice, provider: openai, model: gpt-4.1 }\nworlds:\n  - { name: ${world}, agents: [alice] }\n`;
}

describe("the README's configuration example", () => {
  it("loads, with environment values interpolated and defaults applied", async () => {
    const { config, source, origin, warnings } = await loadConfig({
      configPath: path.join(fixtures, "design-example.yaml"),
      env: { OPENAI_API_KEY: "sk-design", TELEGRAM_BOT_TOKEN: "123:abc", SEARCH_TOKEN: "s3cret" },
      cwd: directory,
    });
    expect(source).toBe(path.join(fixtures, "design-example.yaml"));
    expect(origin).toBe("--config");
    expect(config.providers.openai).toMatchObject({
      type: "openai",
      apiKey: "sk-design",
      baseUrl: "https://api.openai.com/v1",
      api: "chat",
    });
    expect(config.agents.map((agent) => agent.name)).toEqual(["alice", "bob"]);
    expect(config.agents[0]?.tools).toEqual(["shell_cmd", "notes__*"]);
    const team = config.worlds[0];
    expect(team).toMatchObject({
      name: "team",
      defaultAgent: "alice",
      turnLimit: 6,
      respond: "addressed",
      afterDenial: "continue",
      workdir: "./data/worlds/team",
      approvalTimeout: 30 * 60_000,
      approvers: { telegram: ["111"], slack: ["U0123"], discord: ["role:Ops"] },
    });
    expect(config.tools.mcpServers.search).toEqual({
      url: "http://127.0.0.1:8931/mcp",
      headers: { Authorization: "Bearer s3cret" },
    });
    expect(config.tools.approval).toEqual({ notes__list: "never" });
    expect(config.channels.telegram).toEqual({ token: "123:abc", chats: { "-1001234": "team", "*": "team" } });
    // Slack and Discord have no token in the environment: they are left out, with a warning.
    expect(config.channels.slack).toBeUndefined();
    expect(config.channels.discord).toBeUndefined();
    expect(warnings).toEqual([
      "channels.slack: no token in the file or the environment, so slack is off",
      "channels.discord: no token in the file or the environment, so discord is off",
    ]);
  });

  it("takes Slack's app token from the environment when the file's ${SLACK_APP_TOKEN:-} is empty", async () => {
    const { config } = await loadConfig({
      configPath: path.join(fixtures, "design-example.yaml"),
      env: { OPENAI_API_KEY: "sk", SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1", DISCORD_BOT_TOKEN: "d" },
      cwd: directory,
    });
    expect(config.channels.slack).toEqual({
      botToken: "xoxb-1",
      appToken: "xapp-1",
      chats: { C0TEAM: "team" },
      replyIn: "thread",
      stream: "edit",
      agentView: false,
    });
    expect(config.channels.discord).toEqual({ token: "d", chats: { "123456789012345678": "team" } });
  });
});

describe("interpolation", () => {
  const parse = (yaml: string, env: Record<string, string>) =>
    parseConfig(`${yaml}\n${worldFile("team")}`, { label: "test.yaml", env: { OPENAI_API_KEY: "sk", ...env } });

  it("replaces ${VAR}, uses ${VAR:-default} when unset or empty, and keeps $${...} literal", () => {
    const { config } = parse(
      [
        "tools:",
        "  mcpServers:",
        "    notes:",
        "      command: ${NOTES_COMMAND}",
        '      args: ["${MISSING:-fallback}", "${EMPTY:-for-empty}", "$${NOT_A_REFERENCE}", "pre-${NOTES_COMMAND}-post"]',
        "      env: { NOTES_DIR: ${NOTES_DIR:-./data/notes}, LITERAL: $${X:-y} }",
      ].join("\n"),
      { NOTES_COMMAND: "node", EMPTY: "" },
    );
    expect(config.tools.mcpServers.notes).toMatchObject({
      command: "node",
      args: ["fallback", "for-empty", "${NOT_A_REFERENCE}", "pre-node-post"],
      env: { NOTES_DIR: "./data/notes", LITERAL: "${X:-y}" },
    });
  });

  it("an unset variable with no default becomes the empty string (an optional value then counts as absent)", () => {
    const { config } = parse("providers:\n  openai: { baseUrl: ${UNSET_BASE_URL} }", {});
    expect(config.providers.openai?.baseUrl).toBeUndefined();
  });

  it("a value cannot change the YAML structure", () => {
    const { config } = parse('tools:\n  mcpServers:\n    notes: { command: "${TRICKY}" }', {
      TRICKY: "x }, evil: { y",
    });
    expect(config.tools.mcpServers.notes).toMatchObject({ command: "x }, evil: { y" });
  });

  it("interpolates mapping keys", () => {
    const { config } = parse("channels:\n  telegram:\n    token: t\n    chats: { ${TEAM_CHAT}: team }", {
      TEAM_CHAT: "-100777",
    });
    expect(config.channels.telegram?.chats).toEqual({ "-100777": "team" });
  });
});

describe("environment defaults", () => {
  it("provider keys and base URLs come from the environment when the file has none", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      "agents:\n  - { name: a, provider: anthropic, model: m }\n  - { name: g, provider: google, model: m }\nworlds:\n  - { name: team, agents: [a, g] }\n",
    );
    const { config } = await loadConfig({
      env: {
        ANTHROPIC_API_KEY: "ak",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:1",
        GOOGLE_API_KEY: "gk",
        GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:2",
      },
      cwd: directory,
    });
    expect(config.providers.anthropic).toMatchObject({
      type: "anthropic",
      apiKey: "ak",
      baseUrl: "http://127.0.0.1:1",
    });
    expect(config.providers.google).toMatchObject({ type: "google", apiKey: "gk", baseUrl: "http://127.0.0.1:2" });
  });

  it("GEMINI_* wins over GOOGLE_*; a value in the file wins over both", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      "providers:\n  google: { baseUrl: http://file }\nagents:\n  - { name: g, provider: google, model: m }\nworlds:\n  - { name: team, agents: [g] }\n",
    );
    const { config } = await loadConfig({
      env: { GEMINI_API_KEY: "gemini", GOOGLE_API_KEY: "google", GEMINI_BASE_URL: "http://env" },
      cwd: directory,
    });
    expect(config.providers.google).toMatchObject({ apiKey: "gemini", baseUrl: "http://file" });
  });

  it("an OpenAI-compatible local server needs no key", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      'providers:\n  local: { type: openai, baseUrl: "http://127.0.0.1:11434/v1" }\nagents:\n  - { name: a, provider: local, model: llama3 }\nworlds:\n  - { name: team, agents: [a] }\n',
    );
    const { config, unconfiguredProviders } = await loadConfig({
      env: { OPENAI_API_KEY: "not-for-local" },
      cwd: directory,
    });
    expect(config.providers.local).toMatchObject({ type: "openai", baseUrl: "http://127.0.0.1:11434/v1" });
    expect(config.providers.local?.apiKey).toBeUndefined();
    expect(unconfiguredProviders).toEqual([]);
  });

  it("a channel is on when its token is in the environment, and sends every chat to the first world", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), worldFile("team"));
    const { config } = await loadConfig({
      env: {
        OPENAI_API_KEY: "sk",
        TELEGRAM_BOT_TOKEN: "1:t",
        TELEGRAM_API_ROOT: "http://127.0.0.1:9",
        TELEGRAM_WEBHOOK_URL: "https://example.org/telegram/webhook",
        DISCORD_BOT_TOKEN: "d",
        DISCORD_API_URL: "http://127.0.0.1:8/api",
        SLACK_BOT_TOKEN: "xoxb",
        SLACK_SIGNING_SECRET: "secret",
        SLACK_API_URL: "http://127.0.0.1:7/api/",
      },
      cwd: directory,
    });
    expect(config.channels).toEqual({
      telegram: {
        token: "1:t",
        apiRoot: "http://127.0.0.1:9",
        webhookUrl: "https://example.org/telegram/webhook",
        chats: { "*": "team" },
      },
      slack: {
        botToken: "xoxb",
        signingSecret: "secret",
        apiUrl: "http://127.0.0.1:7/api/",
        chats: { "*": "team" },
        replyIn: "thread",
        stream: "edit",
        agentView: false,
      },
      discord: { token: "d", apiUrl: "http://127.0.0.1:8/api", chats: { "*": "team" } },
    });
  });

  it("no channel without a token", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), worldFile("team"));
    const { config, warnings } = await loadConfig({ env: { OPENAI_API_KEY: "sk" }, cwd: directory });
    expect(config.channels).toEqual({});
    expect(warnings).toEqual([]);
  });
});

describe("which file is used", () => {
  const env = { OPENAI_API_KEY: "sk" };

  beforeEach(async () => {
    await mkdir(path.join(directory, "etc"));
    await writeFile(path.join(directory, "flag.yaml"), worldFile("fromflag"));
    await writeFile(path.join(directory, "etc", "env.yaml"), worldFile("fromenv"));
    await writeFile(path.join(directory, "roundtable.yaml"), worldFile("fromcwd"));
  });

  it("--config first", async () => {
    const loaded = await loadConfig({
      configPath: "flag.yaml",
      env: { ...env, ROUNDTABLE_CONFIG: "etc/env.yaml" },
      cwd: directory,
    });
    expect(loaded.config.worlds[0]?.name).toBe("fromflag");
    expect(loaded.source).toBe(path.join(directory, "flag.yaml"));
    expect(loaded.origin).toBe("--config");
  });

  it("then ROUNDTABLE_CONFIG", async () => {
    const loaded = await loadConfig({ env: { ...env, ROUNDTABLE_CONFIG: "etc/env.yaml" }, cwd: directory });
    expect(loaded.config.worlds[0]?.name).toBe("fromenv");
    expect(loaded.origin).toBe("ROUNDTABLE_CONFIG");
  });

  it("then ./roundtable.yaml", async () => {
    const loaded = await loadConfig({ env, cwd: directory });
    expect(loaded.config.worlds[0]?.name).toBe("fromcwd");
    expect(loaded.origin).toBe("./roundtable.yaml");
  });

  it("a missing ROUNDTABLE_CONFIG file is an error, not a fallback", async () => {
    await expect(loadConfig({ env: { ...env, ROUNDTABLE_CONFIG: "gone.yaml" }, cwd: directory })).rejects.toThrow(
      "gone.yaml: config file not found (from ROUNDTABLE_CONFIG)",
    );
  });

  it("then the built-in default", async () => {
    const empty = path.join(directory, "etc");
    const loaded = await loadConfig({ env, cwd: empty });
    expect(loaded.source).toBe("built-in default");
    expect(loaded.config.worlds).toMatchObject([{ name: "main", agents: ["assistant"], defaultAgent: "assistant" }]);
    expect(loaded.config.agents).toMatchObject([
      { name: "assistant", provider: "openai", model: "gpt-4.1", tools: [] },
    ]);
    expect(loaded.config.providers.openai?.apiKey).toBe("sk");
    expect(loaded.unconfiguredProviders).toEqual([]);
  });
});

describe("numbers in the file", () => {
  it("reads numbers and booleans written through ${VAR}", async () => {
    const yaml = [
      "agents:",
      '  - { name: alice, provider: openai, model: gpt-4.1, limits: { maxSteps: "${STEPS}" } }',
      "worlds:",
      '  - { name: team, agents: [alice], turnLimit: "${TURNS:-3}", allowBots: "${BOTS:-true}" }',
      "",
    ].join("\n");
    await writeFile(path.join(directory, "roundtable.yaml"), yaml);
    const { config } = await loadConfig({ env: { OPENAI_API_KEY: "sk", STEPS: "7" }, cwd: directory });
    expect(config.worlds[0]?.turnLimit).toBe(3);
    expect(config.worlds[0]?.allowBots).toBe(true);
    expect(config.agents[0]?.limits.maxSteps).toBe(7);
  });

  it("reads web.trustedProxies as a list, or as comma-separated text through ${VAR}; none by default", async () => {
    const file = (web: string) => `${worldFile("team")}${web}`;
    await writeFile(path.join(directory, "roundtable.yaml"), file(""));
    expect((await loadConfig({ env: { OPENAI_API_KEY: "sk" }, cwd: directory })).config.web.trustedProxies).toEqual([]);
    await writeFile(path.join(directory, "roundtable.yaml"), file("web:\n  trustedProxies: [127.0.0.1, fd00::/8]\n"));
    expect((await loadConfig({ env: { OPENAI_API_KEY: "sk" }, cwd: directory })).config.web.trustedProxies).toEqual([
      "127.0.0.1",
      "fd00::/8",
    ]);
    await writeFile(path.join(directory, "roundtable.yaml"), file('web:\n  trustedProxies: "${PROXIES:-}"\n'));
    const env = { OPENAI_API_KEY: "sk", PROXIES: "127.0.0.1, 10.0.0.0/8" };
    expect((await loadConfig({ env, cwd: directory })).config.web.trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8"]);
    expect((await loadConfig({ env: { OPENAI_API_KEY: "sk" }, cwd: directory })).config.web.trustedProxies).toEqual([]);
  });

  it("keeps long ids written without quotes exact (Discord snowflakes), as strings", async () => {
    const yaml = [
      "agents:",
      "  - { name: alice, provider: openai, model: gpt-4.1 }",
      "worlds:",
      "  - { name: team, agents: [alice], turnLimit: 4, approvers: { discord: [123456789012345678] } }",
      "channels:",
      "  discord: { token: t, chats: { 123456789012345678: team } }",
      "",
    ].join("\n");
    await writeFile(path.join(directory, "roundtable.yaml"), yaml);
    const { config } = await loadConfig({ env: { OPENAI_API_KEY: "sk" }, cwd: directory });
    expect(config.worlds[0]?.turnLimit).toBe(4);
    expect(config.worlds[0]?.approvers.discord).toEqual(["123456789012345678"]);
    expect(Object.keys(config.channels.discord?.chats ?? {})).toEqual(["123456789012345678"]);
  });
});

describe("the built-in default", () => {
  const load = (env: Record<string, string>) => loadConfig({ env, cwd: directory });

  it("uses the first provider whose key is set: openai, anthropic, google", async () => {
    expect((await load({ ANTHROPIC_API_KEY: "a", GEMINI_API_KEY: "g" })).config.agents[0]).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-6",
    });
    expect((await load({ GOOGLE_API_KEY: "g" })).config.agents[0]).toMatchObject({
      provider: "google",
      model: "gemini-2.5-flash",
    });
    expect((await load({ OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" })).config.agents[0]?.provider).toBe("openai");
  });

  it("an OpenAI-compatible local server without a key counts as configured", async () => {
    const loaded = await load({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" });
    expect(loaded.config.providers.openai).toMatchObject({ baseUrl: "http://127.0.0.1:11434/v1" });
    expect(loaded.unconfiguredProviders).toEqual([]);
  });

  it("loads with no key at all, and says which provider is unconfigured", async () => {
    const loaded = await load({});
    expect(loaded.config.agents).toMatchObject([{ name: "assistant", provider: "openai" }]);
    expect(loaded.config.providers.openai?.apiKey).toBeUndefined();
    expect(loaded.unconfiguredProviders).toEqual(["openai"]);
    expect(loaded.warnings).toEqual([noProviderKeyMessage]);
  });

  it("turns channels on from the environment", async () => {
    const loaded = await load({ OPENAI_API_KEY: "o", TELEGRAM_BOT_TOKEN: "1:t" });
    expect(loaded.config.channels.telegram).toEqual({ token: "1:t", chats: { "*": "main" } });
  });
});

describe("resolveDatabaseUrl", () => {
  it("DATABASE_URL, else SQLite under ./data", () => {
    expect(resolveDatabaseUrl({ DATABASE_URL: "postgresql://u:p@db/roundtable" })).toBe(
      "postgresql://u:p@db/roundtable",
    );
    expect(resolveDatabaseUrl({ DATABASE_URL: "" })).toBe("file:./data/roundtable.db");
    expect(resolveDatabaseUrl({})).toBe("file:./data/roundtable.db");
  });
});
