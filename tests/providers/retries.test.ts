/**
 * Transient errors are retried (rate limited after the fake's retry-after, server errors and
 * network failures with capped backoff), the rest are not, and a stream that already
 * streamed text is never retried. Providers come from createProvider; sleep is injected.
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { ProviderError } from "../../src/errors/roundtable-error.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type { FakeModelServer, FakeStep } from "../fakes/model-fake-server.js";
import { apiKey, collect, failure, providerCases, simpleRequest } from "./provider-harness.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe.each(providerCases)("$label retries", (testCase) => {
  async function setup(steps: FakeStep[], config: Record<string, unknown> = {}) {
    fake = await testCase.start({ apiKey, steps });
    const sleeps: number[] = [];
    const provider = createProvider(
      testCase.type,
      providerConfigSchema.parse({
        apiKey,
        baseUrl: fake.baseUrl,
        ...(testCase.api ? { api: testCase.api } : {}),
        ...config,
      }),
      silentLogger(),
      {
        env: {},
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        random: () => 0,
      },
    );
    return { provider, sleeps, fake };
  }

  const ok: FakeStep = { type: "reply", text: ["fine"], usage: { inputTokens: 5, outputTokens: 1 } };

  it("waits the retry-after of a 429, then succeeds", async () => {
    const { provider, sleeps } = await setup([{ type: "error", kind: "rate-limited", retryAfter: "7" }, ok]);
    const { response } = await collect(provider, simpleRequest(testCase.model));
    expect(response.text).toBe("fine");
    expect(sleeps).toEqual([7000]);
    expect(fake?.requests).toHaveLength(2);
  });

  it("retries server errors and broken connections with exponential backoff", async () => {
    const { provider, sleeps } = await setup([
      { type: "error", kind: "server" },
      { type: "cut", beforeHeaders: true },
      { type: "error", kind: "overloaded" },
      ok,
    ]);
    const { parts, response } = await collect(provider, simpleRequest(testCase.model));
    expect(response.text).toBe("fine");
    // random() = 0: each wait is half its step (1 s, 2 s, 4 s).
    expect(sleeps).toEqual([500, 1000, 2000]);
    expect(parts.filter((part) => part.type === "text-delta")).toHaveLength(1);
  });

  it("gives up after maxRetries with the last error", async () => {
    const { provider, sleeps } = await setup(
      [
        { type: "error", kind: "server" },
        { type: "error", kind: "server" },
        { type: "error", kind: "server" },
      ],
      { maxRetries: 2 },
    );
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.server");
    expect(sleeps).toHaveLength(2);
    expect(fake?.requests).toHaveLength(3);
  });

  it("does not wait for a retry-after longer than the cap", async () => {
    const { provider, sleeps } = await setup([{ type: "error", kind: "rate-limited", retryAfter: "3600" }, ok]);
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.rate-limited");
    expect((error as ProviderError).userMessage).toMatch(/about 60 minutes/);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ["auth", { type: "error", kind: "auth" }, "provider.auth"],
    ["context too long", { type: "error", kind: "context-too-long" }, "provider.context-too-long"],
    ["malformed", { type: "malformed" }, "provider.malformed"],
    ["refused", { type: "reply", finish: "content-filter" }, "provider.content-refused"],
  ] as [string, FakeStep, string][])("does not retry %s", async (_name, step, code) => {
    const { provider, sleeps } = await setup([step, ok]);
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe(code);
    expect(sleeps).toEqual([]);
    expect(fake?.requests).toHaveLength(1);
  });

  it("does not retry a stream that already streamed text (no duplicated text)", async () => {
    const { provider, sleeps } = await setup([{ type: "cut", text: ["Hel", "lo"] }, ok]);
    const { error, parts } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.network");
    expect(parts).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
    ]);
    expect(sleeps).toEqual([]);
    expect(fake?.requests).toHaveLength(1);
  });

  it("stops waiting when aborted during the backoff", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "error", kind: "server" }, ok] });
    const controller = new AbortController();
    const provider = createProvider(
      testCase.type,
      providerConfigSchema.parse({ apiKey, baseUrl: fake.baseUrl }),
      silentLogger(),
      {
        env: {},
        sleep: async () => controller.abort(),
      },
    );
    const { error } = await failure(provider, simpleRequest(testCase.model), controller.signal);
    expect((error as ProviderError).code).toBe("provider.aborted");
    expect(fake.requests).toHaveLength(1);
  });
});
