/**
 * Child process of transcriber-load.test.ts: records every module Node resolves (a fresh
 * process), makes the transcriber `files.transcribe` names for the fake at argv[2] as the
 * service's start does, prints how many OpenAI SDK modules were loaded, transcribes one file
 * and prints them again.
 */
import { recordResolvedModules } from "../fakes/resolved-modules.js";

const resolved = recordResolvedModules();

const sdkModules = () => resolved.filter((url) => /\/node_modules\/openai\//.test(url)).length;
const report = (phase: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ phase, sdkModules: sdkModules(), ...extra })}\n`);

const baseUrl = process.argv[2] ?? "";
const { configSchema } = await import("../../src/config/schema.js");
const { transcriberFrom } = await import("../../src/app/transcribing-files.js");
const config = configSchema.parse({
  providers: { openai: { type: "openai", apiKey: "test-key", baseUrl } },
  agents: [{ name: "alice", provider: "openai", model: "gpt-4.1", systemPrompt: "You are alice." }],
  worlds: [{ name: "main", agents: ["alice"] }],
  files: { transcribe: "openai" },
});
const transcriber = transcriberFrom(config, {});
for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
report("created", { made: transcriber !== undefined });
const transcribed = await transcriber?.transcribe({
  name: "voice.ogg",
  mediaType: "audio/ogg",
  bytes: new Uint8Array([1, 2, 3]),
});
report("called", { text: transcribed?.text });
