import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/files/transcriber-load-child.ts");

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function runChild(baseUrl: string): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", loader, child, baseUrl], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    process_.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    process_.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.on("error", reject);
    process_.on("exit", (code) => {
      if (code !== 0) reject(new Error(`the child exited with ${code}: ${stderr}`));
      else
        resolve(
          stdout
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
    });
  });
}

describe("the transcriber of files.transcribe", () => {
  // Idle memory (docs/performance.md): the service makes it at start; the OpenAI SDK it uses
  // is megabytes of heap for good, so it is loaded by the first transcription only.
  it("loads the OpenAI SDK at its first transcription, not when it is made", async () => {
    fake = await startOpenAIFake({ steps: [] });
    const [created, called] = await runChild(fake.baseUrl);
    expect(created).toEqual({ phase: "created", sdkModules: 0, made: true });
    expect(called?.text).toBe("transcript of voice.ogg");
    expect(called?.sdkModules).toBeGreaterThan(1);
  });
});
