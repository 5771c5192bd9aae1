/**
 * Child process of sdk-load.test.ts: records every module Node resolves (a fresh process, so
 * nothing is loaded beforehand), creates the OpenAI provider for the fake at argv[2], prints
 * which SDK modules were loaded, calls the model once and prints them again.
 */
import { recordResolvedModules } from "../fakes/resolved-modules.js";

const resolved = recordResolvedModules();

/** The model SDK's own files and our module that imports it. */
const sdkModules = () =>
  resolved.filter((url) => /\/node_modules\/openai\/|\/providers\/openai\/openai-provider/.test(url));
const report = (phase: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ phase, sdkModules: sdkModules().length, ...extra })}\n`);

const baseUrl = process.argv[2] ?? "";
const { providerConfigSchema } = await import("../../src/config/schema.js");
const { silentLogger } = await import("../../src/log/logger.js");
const { createProvider } = await import("../../src/providers/create-provider.js");
const provider = createProvider("openai", providerConfigSchema.parse({ apiKey: "test-key", baseUrl }), silentLogger());
// Give a load started in the background every chance to show: a few turns of the event loop.
for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
report("created");
let text = "";
for await (const part of provider.stream({
  model: "gpt-4.1",
  system: "You are alice.",
  messages: [{ role: "user", text: "ana: @alice hello" }],
  tools: [],
})) {
  if (part.type === "finish") text = part.response.text;
}
report("called", { text });
