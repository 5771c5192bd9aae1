import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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
  SLACK_CLIENT_ID: "1111.2222",
  SLACK_CLIENT_SECRET: "readme-client-secret",
  SLACK_STATE_SECRET: "readme-state-secret-0123456789",
  ROUNDTABLE_SECRET_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
  ALERTS_SECRET: "alerts-readme-secret",
  DISCORD_BOT_TOKEN: "discord-readme",
  SEARCH_TOKEN: "search-readme",
  WEB_CONSOLE_TOKEN: "console-readme-token",
  LOG_LEVEL: "silent",
};

/** The README and every page of docs/ (the reference moved there from the README, #45). */
let documents: { name: string; text: string }[] = [];
let directory = "";
beforeAll(async () => {
  const pages = (await readdir(path.join(repositoryRoot, "docs"))).filter((name) => name.endsWith(".md")).sort();
  documents = await Promise.all(
    ["README.md", ...pages.map((name) => `docs/${name}`)].map(async (name) => ({
      name,
      text: await readFile(path.join(repositoryRoot, name), "utf8"),
    })),
  );
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

/** Every whole config of the README and of docs/, named by its file and line. */
function allConfigs(): { file: string; line: number; yaml: string }[] {
  return documents.flatMap(({ name, text }) => wholeConfigs(text).map((block) => ({ file: name, ...block })));
}

describe("the YAML examples of the README and docs/ work as written (#28, #45)", () => {
  it("there are examples to check, in the README (a first world per platform) and in docs/", () => {
    expect(
      wholeConfigs(documents.find((document) => document.name === "README.md")?.text ?? "").length,
    ).toBeGreaterThanOrEqual(3);
    expect(allConfigs().filter((config) => config.file.startsWith("docs/")).length).toBeGreaterThan(0);
  });

  it("every whole config passes roundtable check --offline", async () => {
    for (const { file, line, yaml } of allConfigs()) {
      const run = await checkOffline(yaml, `${path.basename(file, ".md")}-line-${line}`);
      expect({ file, line, code: run.code, stderr: run.stderr }).toEqual({ file, line, code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^config\s+ok\s/m);
      expect(run.stdout).not.toMatch(/\bFAIL\b/);
    }
  });

  it("every file a stdio MCP server of an example runs from the clone (./…) is there", () => {
    for (const { file, line, yaml } of allConfigs()) {
      const config = parseConfigText(yaml, `${file} line ${line}`, dummyEnvironment).data as {
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
