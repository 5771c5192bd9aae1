import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { ConfigError, type ProviderError } from "../../src/errors/roundtable-error.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider, resolveEndpoint, resolveProviderType } from "../../src/providers/create-provider.js";
import { startAnthropicFake } from "../fakes/anthropic-server.js";
import { startGeminiFake } from "../fakes/gemini-server.js";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { collect, failure, simpleRequest } from "./provider-harness.js";

const config = (value: Record<string, unknown> = {}) => providerConfigSchema.parse(value);

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("resolveProviderType", () => {
  it("infers the type from the key name, else needs `type`", () => {
    expect(resolveProviderType("openai", {})).toBe("openai");
    expect(resolveProviderType("google", {})).toBe("google");
    expect(resolveProviderType("ollama", { type: "openai" })).toBe("openai");
    expect(() => resolveProviderType("ollama", {})).toThrow(ConfigError);
    expect(() => resolveProviderType("ollama", {})).toThrow(/providers\.ollama: .*set type: openai/);
  });
});

describe("resolveEndpoint", () => {
  it("falls back to each SDK's environment variables", () => {
    const env = {
      OPENAI_API_KEY: "o",
      OPENAI_BASE_URL: "http://proxy/v1/",
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_BASE_URL: "http://claude-proxy",
      GOOGLE_API_KEY: "g",
      GOOGLE_GEMINI_BASE_URL: "http://gemini-proxy",
    };
    expect(resolveEndpoint("openai", config(), env)).toEqual({
      type: "openai",
      apiKey: "o",
      baseUrl: "http://proxy/v1",
    });
    expect(resolveEndpoint("anthropic", config(), env)).toEqual({
      type: "anthropic",
      apiKey: "a",
      baseUrl: "http://claude-proxy",
    });
    expect(resolveEndpoint("google", config(), env)).toEqual({
      type: "google",
      apiKey: "g",
      baseUrl: "http://gemini-proxy",
    });
    expect(
      resolveEndpoint("google", config(), { ...env, GEMINI_API_KEY: "gem", GEMINI_BASE_URL: "http://g2" }),
    ).toMatchObject({
      apiKey: "gem",
      baseUrl: "http://g2",
    });
  });

  it("prefers the config and defaults to the official endpoints", () => {
    expect(resolveEndpoint("openai", config({ apiKey: "cfg" }), { OPENAI_API_KEY: "env" }).apiKey).toBe("cfg");
    expect(resolveEndpoint("openai", config(), {})).toEqual({
      type: "openai",
      apiKey: undefined,
      baseUrl: "https://api.openai.com/v1",
    });
    expect(resolveEndpoint("anthropic", config(), {}).baseUrl).toBe("https://api.anthropic.com");
    expect(resolveEndpoint("google", config(), {}).baseUrl).toBe("https://generativelanguage.googleapis.com");
  });

  it("never hands a provider with another name the environment's key", () => {
    const env = { OPENAI_API_KEY: "real-openai-key", OPENAI_BASE_URL: "http://elsewhere/v1" };
    const router = resolveEndpoint(
      "openrouter",
      config({ type: "openai", baseUrl: "https://openrouter.ai/api/v1" }),
      env,
    );
    expect(router.apiKey).not.toBe("real-openai-key");
    expect(router.baseUrl).toBe("https://openrouter.ai/api/v1");
    // A local OpenAI-compatible server needs no key; a placeholder is sent.
    expect(
      resolveEndpoint("ollama", config({ type: "openai", baseUrl: "http://127.0.0.1:11434/v1" }), env).apiKey,
    ).toBe("not-needed");
  });

  it("names the config path of a base URL that is not a URL", () => {
    expect(() => resolveEndpoint("openai", config({ baseUrl: "not a url" }), {})).toThrow(/providers\.openai\.baseUrl/);
  });
});

describe("createProvider", () => {
  it("builds each type against its base URL and key from the environment", async () => {
    for (const [name, start] of [
      ["openai", startOpenAIFake],
      ["anthropic", startAnthropicFake],
      ["google", startGeminiFake],
    ] as const) {
      fake = await start({ apiKey: `${name}-key`, steps: [{ type: "reply", text: [`hi from ${name}`] }] });
      const env =
        name === "openai"
          ? { OPENAI_API_KEY: "openai-key", OPENAI_BASE_URL: fake.baseUrl }
          : name === "anthropic"
            ? { ANTHROPIC_API_KEY: "anthropic-key", ANTHROPIC_BASE_URL: fake.baseUrl }
            : { GEMINI_API_KEY: "google-key", GEMINI_BASE_URL: fake.baseUrl };
      const provider = createProvider(name, config(), silentLogger(), { env });
      expect(provider.name).toBe(name);
      const { response } = await collect(
        provider,
        simpleRequest(name === "openai" ? "gpt-4.1" : name === "anthropic" ? "claude-opus-4-6" : "gemini-2.5-flash"),
      );
      expect(response.text).toBe(`hi from ${name}`);
      await fake.close();
      fake = undefined;
    }
  });

  it("speaks Chat Completions to an OpenAI-compatible server under another name", async () => {
    fake = await startOpenAIFake({ steps: [{ type: "reply", text: ["local answer"] }] });
    const provider = createProvider("ollama", config({ type: "openai", baseUrl: fake.baseUrl }), silentLogger(), {
      env: {},
    });
    const { response } = await collect(provider, { ...simpleRequest("llama3.1:8b"), maxOutputTokens: 300 });
    expect(response.text).toBe("local answer");
    const body = fake.requests[0]?.body as Record<string, unknown>;
    // Compatible servers know max_tokens; api.openai.com gets max_completion_tokens.
    expect(body.max_tokens).toBe(300);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer not-needed");
  });

  it("starts without a key and fails each call with a clear provider.auth", async () => {
    const provider = createProvider("anthropic", config(), silentLogger(), { env: {} });
    const { error } = await failure(provider, simpleRequest("claude-opus-4-6"));
    expect((error as ProviderError).code).toBe("provider.auth");
    expect((error as ProviderError).userMessage).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("logs the cause of a failure once at debug (the turn logs what it does about it), without the key or a stack", async () => {
    fake = await startOpenAIFake({ apiKey: "secret-key-123", steps: [{ type: "error", kind: "context-too-long" }] });
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
    const provider = createProvider("openai", config({ apiKey: "secret-key-123", baseUrl: fake.baseUrl }), logger, {
      env: {},
    });
    await failure(provider, simpleRequest("gpt-4.1"));
    const failures = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "provider call gave up");
    expect(failures).toHaveLength(1);
    expect(failures[0]?.level).toBe(20);
    expect(JSON.stringify(failures[0])).not.toContain("stack");
    expect(failures[0]?.code).toBe("provider.context-too-long");
    expect(JSON.stringify(failures[0])).toMatch(/maximum context length/);
    expect(lines.join("\n")).not.toContain("secret-key-123");
  });
});
