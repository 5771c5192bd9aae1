import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { type IdentityFakes, startIdentityFakes } from "./identity-fakes.js";
import { runRoundtable } from "./run-roundtable.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-cli-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const goodConfig = `
agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
  - { name: bob, provider: openai, model: gpt-4o }
worlds:
  - { name: team, agents: [alice, bob], defaultAgent: alice }
`;

describe("roundtable --help", () => {
  it("lists the commands and exits 0", async () => {
    const run = await runRoundtable(["--help"], { cwd: directory });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: roundtable [--config FILE] <command> [options]");
    for (const command of ["start", "chat", "check", "migrate"])
      expect(run.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    expect(run.stderr).toBe("");
  });

  it("every command has its own --help", async () => {
    const runs = await Promise.all(
      ["start", "chat", "check", "migrate"].map((command) => runRoundtable([command, "--help"], { cwd: directory })),
    );
    for (const [index, command] of ["start", "chat", "check", "migrate"].entries()) {
      expect(runs[index]?.code).toBe(0);
      expect(runs[index]?.stdout).toContain(`Usage: roundtable ${command}`);
    }
    expect(runs[1]?.stdout).toContain("/approve once|session|deny");
  });

  it("an unknown command prints the usage and exits 2", async () => {
    const run = await runRoundtable(["frobnicate"], { cwd: directory });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('roundtable: unknown command "frobnicate"');
    expect(run.stderr).toContain("Usage: roundtable");
  });

  it("an unknown option prints the command's usage and exits 2", async () => {
    const run = await runRoundtable(["check", "--verbose"], { cwd: directory });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("roundtable check: Unknown option '--verbose'");
    expect(run.stderr).toContain("Usage: roundtable check");
  });
});

describe("roundtable check", () => {
  let fakes: IdentityFakes;

  beforeAll(async () => {
    fakes = await startIdentityFakes({ openAIKey: "sk-good", telegramToken: "123:good" });
  });

  afterAll(async () => {
    await fakes.close();
  });

  const environment = (overrides: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
    OPENAI_API_KEY: "sk-good",
    OPENAI_BASE_URL: `${fakes.origin}/v1`,
    TELEGRAM_BOT_TOKEN: "123:good",
    TELEGRAM_API_ROOT: fakes.origin,
    ...overrides,
  });

  it("a broken config prints the precise error, no stack trace, and exits 1", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      `${goodConfig.replace("agents: [alice, bob]", "agents: [alice, carol]")}`,
    );
    const run = await runRoundtable(["check"], { cwd: directory, env: environment() });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('roundtable.yaml: worlds[0].agents[1]: unknown agent "carol" (agents: alice, bob)\n');
    expect(run.stdout).toBe("");
  });

  it("a tools.rules pattern RE2 refuses (a lookahead JavaScript accepts) fails, naming the pattern and why", async () => {
    const rules = 'tools:\n  rules:\n    - { tool: shell_cmd, match: { command: "^(?!rm )" }, action: allow }\n';
    await writeFile(path.join(directory, "roundtable.yaml"), `${goodConfig}${rules}`);
    const run = await runRoundtable(["check"], { cwd: directory, env: environment() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^roundtable\.yaml: tools\.rules\[0\]\.match\.command: expected a regular expression in RE2 syntax, got "\^\(\?!rm \)" \(RE2 refuses: .*\(\?!.*\)\n$/,
    );
    expect(run.stdout).toBe("");
  });

  it("a YAML syntax error names line and column", async () => {
    await writeFile(path.join(directory, "broken.yaml"), "agents:\n  - name: [alice\n");
    const run = await runRoundtable(["--config", "broken.yaml", "check"], { cwd: directory, env: environment() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^broken\.yaml: line \d+, column \d+: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("a good config with working keys prints the table and exits 0", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), goodConfig);
    const run = await runRoundtable(["check"], { cwd: directory, env: environment() });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^CHECK\s+STATUS\s+DETAIL$/);
    expect(run.stdout).toMatch(
      new RegExp(
        `^config\\s+ok\\s+${escapeRegExp(path.join(directory, "roundtable.yaml"))} \\(from \\./roundtable\\.yaml\\)$`,
        "m",
      ),
    );
    expect(run.stdout).toMatch(/^database\s+ok\s+SQLite .*roundtable\.db \(created at start\)$/m);
    expect(run.stdout).toMatch(/^provider openai\s+ok\s+key accepted by http:\/\/127\.0\.0\.1:\d+\/v1; 2 models$/m);
    expect(run.stdout).toMatch(/^telegram\s+ok\s+bot @fake_roundtable_bot$/m);
    expect(fakes.requests).toContainEqual({ method: "GET", path: "/v1/models" });
    expect(fakes.requests).toContainEqual({ method: "POST", path: "/bot123:good/getMe" });
  });

  it("a rejected key is a FAIL row and exit 1", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), goodConfig);
    const run = await runRoundtable(["check"], {
      cwd: directory,
      env: environment({ OPENAI_API_KEY: "sk-bad", TELEGRAM_BOT_TOKEN: "123:bad" }),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^provider openai\s+FAIL\s+401 .*Incorrect API key provided/m);
    expect(run.stdout).toMatch(/^telegram\s+FAIL\s+.*401.*Unauthorized/m);
    expect(run.stdout).toMatch(/^database\s+ok\s+/m);
    expect(run.stderr).toBe("roundtable check: 2 checks failed\n");
  });

  it("a model the provider does not list is noted", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), goodConfig.replace("gpt-4o", "gpt-9-typo"));
    const run = await runRoundtable(["check"], { cwd: directory, env: environment() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^provider openai\s+ok\s+.*not in the list \(check the name\): gpt-9-typo$/m);
  });

  it("the built-in default with no key fails the provider row", async () => {
    const run = await runRoundtable(["check"], {
      cwd: directory,
      env: { DATABASE_URL: `file:${path.join(directory, "x.db")}` },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^config\s+ok\s+built-in default$/m);
    expect(run.stdout).toMatch(
      /^provider openai\s+FAIL\s+no API key: set providers\.openai\.apiKey or OPENAI_API_KEY$/m,
    );
  });

  it("--offline checks only the config and the database", async () => {
    await writeFile(path.join(directory, "roundtable.yaml"), goodConfig);
    const run = await runRoundtable(["check", "--offline"], {
      cwd: directory,
      env: environment({ OPENAI_API_KEY: "sk-bad" }),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^provider openai\s+skip\s+--offline$/m);
  });

  it("MCP servers are started and their tools listed; one that cannot start is a FAIL row", async () => {
    const notes = notesServerCommand();
    const servers = [
      "tools:",
      "  mcpServers:",
      `    notes: { command: ${JSON.stringify(notes.command)}, args: ${JSON.stringify(notes.args)} }`,
      `    broken: { command: ${JSON.stringify(path.join(directory, "no-such-server"))} }`,
    ].join("\n");
    await writeFile(path.join(directory, "roundtable.yaml"), `${goodConfig}${servers}\n`);
    const run = await runRoundtable(["check"], { cwd: directory, env: environment() });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^mcp notes\s+ok\s+\d+ tools: add, list, /m);
    expect(run.stdout).toMatch(/^mcp broken\s+FAIL\s+command not found: ".*no-such-server" \(ENOENT\)$/m);
  });

  it("a missing --config file exits 1 naming it", async () => {
    const run = await runRoundtable(["check", "--config", "nope.yaml"], { cwd: directory, env: environment() });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("nope.yaml: config file not found (from --config)\n");
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
