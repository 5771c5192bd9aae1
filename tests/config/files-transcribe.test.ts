import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { transcriberFrom } from "../../src/app/transcribing-files.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-config-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const base = `agents:\n  - { name: alice, provider: openai, model: gpt-4.1 }\nworlds:\n  - { name: team, agents: [alice] }\n`;

async function load(yaml: string) {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  return loadConfig({ env: { OPENAI_API_KEY: "sk-test" }, cwd: directory });
}

describe("files.transcribe", () => {
  it("defaults to off, with whisper-1 as the model", async () => {
    const { config } = await load(base);
    expect(config.files.transcribe).toBeUndefined();
    expect(config.files.transcribeModel).toBe("whisper-1");
    expect(transcriberFrom(config)).toBeUndefined();
  });

  it("takes the built-in openai provider or a declared one of type openai", async () => {
    const builtIn = await load(`${base}files:\n  transcribe: openai\n`);
    expect(transcriberFrom(builtIn.config)).toBeDefined();
    const declared = await load(
      `providers:\n  local: { type: openai, baseUrl: "http://127.0.0.1:8000/v1" }\n${base}files:\n  transcribe: local\n  transcribeModel: whisper-large-v3\n`,
    );
    expect(declared.config.files).toMatchObject({ transcribe: "local", transcribeModel: "whisper-large-v3" });
  });

  it("refuses a provider that is unknown or does not speak OpenAI's API, naming the path", async () => {
    await expect(load(`${base}files:\n  transcribe: whisperer\n`)).rejects.toThrow(
      /roundtable\.yaml: files\.transcribe: unknown provider "whisperer"/,
    );
    await expect(
      load(`providers:\n  claude: { type: anthropic, apiKey: x }\n${base}files:\n  transcribe: claude\n`),
    ).rejects.toThrow(
      /files\.transcribe: provider "claude" is of type anthropic; transcription needs an OpenAI-compatible provider/,
    );
  });
});
