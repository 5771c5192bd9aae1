import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError, RoundtableError } from "../../src/errors/roundtable-error.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-config-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const env = { OPENAI_API_KEY: "sk-test" };

/** Writes `./roundtable.yaml` and returns the message of the error loading it throws. */
async function errorFor(yaml: string, environment: Record<string, string> = env): Promise<string> {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  try {
    await loadConfig({ env: environment, cwd: directory });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected the config to be refused");
}

const twoAgents = `
agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
  - { name: bob, provider: openai, model: gpt-4.1 }
`;

describe("a bad config file is refused with a message naming file, path and expectation", () => {
  it("a rule pattern that is not a regular expression", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\ntools:\n  rules:\n    - { tool: shell_cmd, match: { command: "(" }, action: allow }\n`;
    expect(await errorFor(yaml)).toMatch(
      /^roundtable\.yaml: tools\.rules\[0\]\.match\.command: expected a regular expression/,
    );
  });

  it("a rule pattern JavaScript accepts but RE2 (the engine that matches rules) refuses: a lookahead", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\ntools:\n  rules:\n    - { tool: shell_cmd, match: { command: "^(?!rm)" }, action: allow }\n`;
    expect(await errorFor(yaml)).toMatch(
      /^roundtable\.yaml: tools\.rules\[0\]\.match\.command: expected a regular expression in RE2 syntax, got "\^\(\?!rm\)" \(RE2 refuses: .+\)/,
    );
  });

  it("MCP server names that make tool names ambiguous (notes and notes_)", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\ntools:\n  mcpServers:\n    notes: { command: node }\n    notes_: { command: node }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: tools.mcpServers.notes_: server name "notes_" makes tool names ambiguous with server "notes" (notes__… could be either); rename one',
    );
  });

  it("an MCP server name with '__'", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\ntools:\n  mcpServers:\n    my__notes: { command: node }\n`;
    expect(await errorFor(yaml)).toMatch(/^roundtable\.yaml: tools\.mcpServers.*"my__notes"/);
  });

  it("a queue concurrency below 1", async () => {
    expect(await errorFor(`${twoAgents}queue:\n  concurrency: 0\n`)).toBe(
      "roundtable.yaml: queue.concurrency: expected a number >= 1, got 0",
    );
  });

  it("a trusted proxy that is neither an address nor a CIDR range", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\nweb:\n  trustedProxies: [127.0.0.1, localhost, 10.0.0.0/33]\n`;
    expect((await errorFor(yaml)).split("\n")).toEqual([
      'roundtable.yaml: web.trustedProxies[1]: expected an IP address or a CIDR range such as 127.0.0.1, ::1 or 10.0.0.0/8, got "localhost"',
      'roundtable.yaml: web.trustedProxies[2]: expected an IP address or a CIDR range such as 127.0.0.1, ::1 or 10.0.0.0/8, got "10.0.0.0/33"',
    ]);
  });

  it("wrong type", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], turnLimit: six }\n`)).toBe(
      'roundtable.yaml: worlds[0].turnLimit: expected a number, got "six"',
    );
  });

  it("a whole number where a fraction was given", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], turnLimit: 2.5 }\n`)).toBe(
      "roundtable.yaml: worlds[0].turnLimit: expected a whole number, got 2.5",
    );
  });

  it("unknown agent in a world", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice, carol] }\n`)).toBe(
      'roundtable.yaml: worlds[0].agents[1]: unknown agent "carol" (agents: alice, bob)',
    );
  });

  it("duplicate agent names", async () => {
    const yaml = `${twoAgents}  - { name: alice, provider: openai, model: gpt-4o }\nworlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe('roundtable.yaml: agents[2].name: duplicate agent name "alice" (also agents[0])');
  });

  it("duplicate world names", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\n  - { name: team, agents: [bob] }\n`;
    expect(await errorFor(yaml)).toBe('roundtable.yaml: worlds[1].name: duplicate world name "team" (also worlds[0])');
  });

  it("missing key for a provider an agent uses", async () => {
    const yaml = `agents:\n  - { name: alice, provider: anthropic, model: claude-sonnet-4-5 }\nworlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml, {})).toBe(
      'roundtable.yaml: agents[0].provider: provider "anthropic" has no API key (set providers.anthropic.apiKey or ANTHROPIC_API_KEY)',
    );
  });

  it("unknown provider", async () => {
    const yaml = `providers:\n  local: { type: openai, baseUrl: "http://127.0.0.1:11434/v1" }\nagents:\n  - { name: alice, provider: lokal, model: llama3 }\nworlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: agents[0].provider: unknown provider "lokal" (providers: local; openai, anthropic, google, scripted need no entry)',
    );
  });

  it("a provider not named after a type must say its type", async () => {
    const yaml = `providers:\n  local: { baseUrl: "http://127.0.0.1:11434/v1" }\nagents:\n  - { name: alice, provider: local, model: llama3 }\nworlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: providers.local.type: missing (expected "openai", "anthropic", "google" or "scripted" for a provider not named after its type)',
    );
  });

  it("unknown tool and unknown MCP server", async () => {
    const yaml = `tools:\n  mcpServers:\n    notes: { command: node }\nagents:\n  - { name: alice, provider: openai, model: gpt-4.1, tools: [bash, search__find, notes__*] }\nworlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      [
        'roundtable.yaml: agents[0].tools[0]: unknown tool "bash" (expected shell_cmd, <server>__<tool> or <server>__*; servers: notes)',
        'roundtable.yaml: agents[0].tools[1]: unknown MCP server "search" in "search__find" (tools.mcpServers: notes)',
      ].join("\n"),
    );
  });

  it("bad duration", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], approvalTimeout: soon }\n`)).toBe(
      'roundtable.yaml: worlds[0].approvalTimeout: expected a duration such as 45s, 30m or 2h, got "soon"',
    );
  });

  it("a duration of the wrong type", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], approvalTimeout: true }\n`)).toBe(
      "roundtable.yaml: worlds[0].approvalTimeout: expected a string or a number, got true",
    );
  });

  it("unknown top-level key, with a suggestion", async () => {
    expect(await errorFor(`${twoAgents}wrolds:\n  - { name: team, agents: [alice] }\n`)).toBe(
      [
        'roundtable.yaml: unknown top-level key "wrolds" (did you mean "worlds"? expected one of: providers, agents, worlds, tools, channels, web, queue, files, schedules, triggers, hooks)',
      ].join("\n"),
    );
  });

  it("unknown nested key", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], respnd: all }\n`)).toBe(
      'roundtable.yaml: worlds[0]: unknown key "respnd" (did you mean "respond"? expected one of: name, agents, defaultAgent, turnLimit, respond, afterDenial, workdir, approvers, members, limits, approvalTimeout, approvals, allowBots, linkPreviews, hooks)',
    );
  });

  it("YAML syntax error with line and column", async () => {
    const message = await errorFor("agents:\n  - name: alice\n    model: [gpt-4.1\nworlds: []\n");
    expect(message.split("\n")[0]).toMatch(/^roundtable\.yaml: line 4, column 1: /);
    expect(message).toContain("  4 | worlds: []\n    | ^");
  });

  it("YAML syntax error columns count the original text, not the interpolated one", async () => {
    const message = await errorFor("providers:\n  openai: { apiKey: ${OPENAI_API_KEY} } }\n");
    expect(message.split("\n")[0]).toMatch(/^roundtable\.yaml: line 2, column 41: /);
  });

  it("duplicate keys are a YAML error", async () => {
    const message = await errorFor(`${twoAgents}agents: []\n`);
    expect(message.split("\n")[0]).toBe("roundtable.yaml: line 5, column 1: Map keys must be unique");
  });

  it("defaultAgent not in the world", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], defaultAgent: bob }\n`)).toBe(
      'roundtable.yaml: worlds[0].defaultAgent: "bob" is not one of the world\'s agents (alice)',
    );
  });

  it("chats naming an unknown world", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\nchannels:\n  telegram:\n    token: "1:abc"\n    chats: { "-1001234": tema }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: channels.telegram.chats["-1001234"]: unknown world "tema" (worlds: team)',
    );
  });

  it("bad respond value", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [alice], respond: everyone }\n`)).toBe(
      'roundtable.yaml: worlds[0].respond: expected "addressed" or "all", got "everyone"',
    );
  });

  it("a world with an empty agents list", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: team, agents: [] }\n`)).toBe(
      "roundtable.yaml: worlds[0].agents: expected at least 1 item, got an empty list",
    );
  });

  it("no agents declared at all", async () => {
    expect(await errorFor("agents: []\nworlds:\n  - { name: team, agents: [alice] }\n")).toBe(
      'roundtable.yaml: worlds[0].agents[0]: unknown agent "alice" (no agents are declared)',
    );
  });

  it("a file with no worlds", async () => {
    expect(await errorFor(twoAgents)).toBe(
      "roundtable.yaml: worlds: expected at least 1 world, e.g. worlds: [{ name: team, agents: [alice] }]",
    );
  });

  it("a missing required key", async () => {
    expect(
      await errorFor("agents:\n  - { name: alice, provider: openai }\nworlds:\n  - { name: team, agents: [alice] }\n"),
    ).toBe("roundtable.yaml: agents[0].model: missing (expected a string)");
  });

  it("an unset variable in a required place names the variable", async () => {
    const yaml =
      "agents:\n  - { name: alice, provider: openai, model: ${MODEL} }\nworlds:\n  - { name: team, agents: [alice] }\n";
    expect(await errorFor(yaml)).toBe(
      "roundtable.yaml: agents[0].model: expected a non-empty string (${MODEL} is not set)",
    );
  });

  it("an unset variable as a provider's API key is named in the error about the missing key (#28)", async () => {
    const yaml =
      'providers:\n  openai: { apiKey: "${OPENAI_KEY_TYPO}" }\nagents:\n  - { name: alice, provider: openai, model: gpt-4o }\nworlds:\n  - { name: team, agents: [alice] }\n';
    expect(await errorFor(yaml, {})).toBe(
      'roundtable.yaml: agents[0].provider: provider "openai" has no API key (set providers.openai.apiKey or OPENAI_API_KEY) (providers.openai.apiKey is ${OPENAI_KEY_TYPO}, which is not set)',
    );
  });

  it("an unterminated ${NAME is a config error with its line, not a literal value (#28)", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\nchannels:\n  telegram:\n    token: \${TELEGRAM_BOT_TOKEN\n`;
    const message = await errorFor(yaml, { ...env, TELEGRAM_BOT_TOKEN: "1:abc" });
    expect(message).toBe(
      "roundtable.yaml: line 9, column 12: ${TELEGRAM_BOT_TOKEN is not closed: write ${TELEGRAM_BOT_TOKEN} (or $${ for a literal ${)\n" +
        "  9 |     token: ${TELEGRAM_BOT_TOKEN\n" +
        "    |            ^",
    );
  });

  it("a bad name", async () => {
    expect(await errorFor(`${twoAgents}worlds:\n  - { name: 9team, agents: [alice] }\n`)).toBe(
      `roundtable.yaml: worlds[0].name: expected a name of letters, digits, '-' and '_', starting with a letter, got "9team"`,
    );
  });

  it("a bad MCP server name (a record key)", async () => {
    const yaml = `tools:\n  mcpServers:\n    "my notes": { command: node }\n${twoAgents}worlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      `roundtable.yaml: tools.mcpServers: invalid name "my notes": expected a name of letters, digits, '-' and '_', starting with a letter`,
    );
  });

  it("an MCP server that is neither stdio nor HTTP", async () => {
    const yaml = `tools:\n  mcpServers:\n    notes: { comand: node }\n${twoAgents}worlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      "roundtable.yaml: tools.mcpServers.notes: expected a mapping with command, or a mapping with url, got a mapping",
    );
  });

  it("an MCP server with one wrong key", async () => {
    const yaml = `tools:\n  mcpServers:\n    notes: { command: node, arg: [x] }\n${twoAgents}worlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: tools.mcpServers.notes: unknown key "arg" (did you mean "args"? expected one of: command, args, env, cwd, timeout)',
    );
  });

  it("a list at the top level", async () => {
    expect(await errorFor("- alice\n- bob\n")).toBe(
      "roundtable.yaml: expected a mapping at the top level (providers, agents, worlds, …), got a list",
    );
  });

  it("Slack with a bot token but neither a signing secret nor an app token", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\nchannels:\n  slack: { botToken: xoxb-1 }\n`;
    expect(await errorFor(yaml)).toBe(
      "roundtable.yaml: channels.slack: set signingSecret (HTTP events, or SLACK_SIGNING_SECRET) or appToken (Socket Mode, or SLACK_APP_TOKEN) next to botToken",
    );
  });

  it("approvers for an unknown platform", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice], approvers: { telegarm: ["1"] } }\n`;
    expect(await errorFor(yaml)).toBe(
      "roundtable.yaml: worlds[0].approvers.telegarm: unknown platform (expected one of: slack, telegram, discord, console, web)",
    );
  });

  it("names under approvers.web or members.web without channels.web.users (the shared token makes names labels)", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice], approvers: { web: [ana, "*"] }, members: { web: ["*"] } }\n`;
    expect(await errorFor(yaml)).toBe(
      'roundtable.yaml: worlds[0].approvers.web: names ana mean nothing without channels.web.users: with only the shared WEB_CONSOLE_TOKEN anyone holding it can type any name. Give each person a token under channels.web.users (e.g. channels: { web: { users: { ana: ${ANA_WEB_TOKEN} } } }), or use "*"',
    );
    const withPeople = `${yaml}channels:\n  web: { users: { ana: ana-token-0001, operator: op-token-00001 } }\n`;
    expect(await errorFor(withPeople)).toBe(
      "roundtable.yaml: channels.web.users.operator: `operator` is the name of the shared token's holders: pick another",
    );
  });

  it("a shared web token (WEB_CONSOLE_TOKEN) shorter than 16 characters", async () => {
    const yaml = `${twoAgents}worlds:\n  - { name: team, agents: [alice] }\n`;
    expect(await errorFor(yaml, { ...env, WEB_CONSOLE_TOKEN: "hunter2" })).toBe(
      "roundtable.yaml: web.token: the web console's shared token (WEB_CONSOLE_TOKEN) must be at least 16 characters, got 7: use a random one (e.g. `openssl rand -base64 24`), or leave it unset to have one generated",
    );
  });

  it("several problems at once, one line each", async () => {
    const message = await errorFor(
      `${twoAgents}worlds:\n  - { name: team, agents: [alice, carol], defaultAgent: dave }\n`,
    );
    expect(message.split("\n")).toEqual([
      'roundtable.yaml: worlds[0].agents[1]: unknown agent "carol" (agents: alice, bob)',
      'roundtable.yaml: worlds[0].defaultAgent: "dave" is not one of the world\'s agents (alice, carol)',
    ]);
  });

  it("a file named by --config that does not exist", async () => {
    const attempt = loadConfig({ configPath: "nope.yaml", env, cwd: directory });
    await expect(attempt).rejects.toBeInstanceOf(RoundtableError);
    await expect(attempt).rejects.toMatchObject({
      code: "config.not-found",
      message: "nope.yaml: config file not found (from --config)",
    });
  });
});
