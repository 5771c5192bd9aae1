import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const main = path.join(root, "src/cli/main.ts");

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function runChat(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", loader, main, "chat", ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("roundtable chat (the real CLI, the real OpenAI SDK against a fake, SQLite)", () => {
  it("prints the chat, shows the approval line, takes /approve, and continues the same chat when run again", async () => {
    fake = await startOpenAIFake({ apiKey: "sk-test" });
    fake.script(
      { type: "reply", toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"ls"}'] }] },
      { type: "reply", text: ["I see ", "the files."] },
      { type: "reply", text: ["We talked about files."] },
    );
    const directory = mkdtempSync(path.join(tmpdir(), "rt-chat-"));
    writeFileSync(path.join(directory, "notes.txt"), "hello\n");
    const config = path.join(directory, "roundtable.yaml");
    writeFileSync(
      config,
      [
        "providers:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
        "  openai: { apiKey: ${OPENAI_API_KEY}, baseUrl: ${OPENAI_BASE_URL} }",
        "agents:",
        "  - { name: alice, provider: openai, model: gpt-4.1, systemPrompt: You are alice., tools: [shell_cmd] }",
        "worlds:",
        `  - { name: team, agents: [alice], defaultAgent: alice, workdir: ${JSON.stringify(directory)} }`,
        "",
      ].join("\n"),
    );
    const env = {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: fake.baseUrl,
      DATABASE_URL: `file:${path.join(directory, "roundtable.db")}`,
      LOG_LEVEL: "warn",
    };
    const first = await runChat(
      ["--config", config, "--world", "team", "--as", "ana"],
      "@alice list files\n/approve once\n",
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trim().split("\n");
    expect(lines[0]).toBe("ana: @alice list files");
    expect(lines[1]).toMatch(
      /^approval ([0-9a-f]{4,}): alice wants to run shell_cmd \{"command":"ls"\} — \/approve once\|session\|deny \1$/,
    );
    expect(lines).toContain("Approved once.");
    expect(lines.some((line) => /^approval [0-9a-f]+: approved once by ana$/.test(line))).toBe(true);
    expect(lines.at(-1)).toBe("alice: I see the files.");
    // The tool really ran in the world's directory.
    const toolMessage = (
      fake.requests[1]?.body as { messages: { role: string; content: string }[] } | undefined
    )?.messages.at(-1);
    expect(toolMessage?.role).toBe("tool");
    expect(toolMessage?.content).toContain("notes.txt");

    const second = await runChat(
      ["--config", config, "--world", "team", "--as", "ana"],
      "@alice what did we do?\n",
      env,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim().split("\n").at(-1)).toBe("alice: We talked about files.");
    const history = JSON.stringify(fake.requests[2]?.body);
    expect(history).toContain("I see the files.");
    expect(history).toContain("ana: @alice list files");
  });

  it("an unknown world is refused with a clear message and a non-zero exit", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "rt-chat-"));
    const result = await runChat(["--world", "nowhere"], "hello\n", {
      DATABASE_URL: `file:${path.join(directory, "roundtable.db")}`,
      OPENAI_API_KEY: "sk-test",
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('no world named "nowhere"');
  });
});
