import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./run-cli-in-process.js";
import { parseConfigText } from "../../src/config/parse-config-text.js";
import { repositoryRoot } from "./run-roundtable.js";

/** Every ```yaml block of the README that is a whole config (it has a top-level `agents:`), with its line. */
function wholeConfigs(readme: string): { line: number; yaml: string }[] {
  const blocks: { line: number; yaml: string }[] = [];
  for (const match of readme.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
    const yaml = match[1] ?? "";
    if (!/^agents:/m.test(yaml)) continue;
    blocks.push({ line: readme.slice(0, match.index).split("\n").length, yaml });
  }
  return blocks;
}

/** Dummy values for every variable the examples may use; nothing of the test process's own. */
const dummyEnvironment: Record<string, string> = {
  OPENAI_API_KEY: "sk-readme",
  ANTHROPIC_API_KEY: "sk-ant-readme",
  GEMINI_API_KEY: "gemini-readme",
  TELEGRAM_BOT_TOKEN: "123456:readme",
  SLACK_BOT_TOKEN: "xoxb-readme",
  SLACK_SIGNING_SECRET: "readme-secret",
  DISCORD_BOT_TOKEN: "discord-readme",
  SEARCH_TOKEN: "search-readme",
  WEB_CONSOLE_TOKEN: "console-readme-token",
  LOG_LEVEL: "silent",
};

let readme = "";
let directory = "";
beforeAll(async () => {
  readme = await readFile(path.join(repositoryRoot, "README.md"), "utf8");
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-readme-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function checkOffline(yaml: string, name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = path.join(directory, `${name}.yaml`);
  await writeFile(file, yaml);
  return runCliInProcess(["check", "--offline", "--config", file], {
    env: { ...dummyEnvironment, DATABASE_URL: `file:${path.join(directory, `${name}.db`)}` },
    cwd: directory,
  });
}

describe("the README's YAML examples work as written (#28)", () => {
  it("there are examples to check", () => {
    expect(wholeConfigs(readme).length).toBeGreaterThan(0);
  });

  it("every whole config passes roundtable check --offline", async () => {
    for (const { line, yaml } of wholeConfigs(readme)) {
      const run = await checkOffline(yaml, `readme-line-${line}`);
      expect({ line, code: run.code, stderr: run.stderr }).toEqual({ line, code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^config\s+ok\s/m);
      expect(run.stdout).not.toMatch(/\bFAIL\b/);
    }
  });

  it("every file a stdio MCP server of an example runs from the clone (./…) is there", () => {
    for (const { line, yaml } of wholeConfigs(readme)) {
      const config = parseConfigText(yaml, `README.md line ${line}`, dummyEnvironment).data as {
        tools?: { mcpServers?: Record<string, { args?: unknown[] }> };
      };
      for (const [name, server] of Object.entries(config.tools?.mcpServers ?? {})) {
        for (const argument of server.args ?? []) {
          if (typeof argument !== "string" || !argument.startsWith("./")) continue;
          expect({ line, name, argument, exists: existsSync(path.join(repositoryRoot, argument)) }).toEqual({
            line,
            name,
            argument,
            exists: true,
          });
        }
      }
    }
  });
});
