/**
 * Transient errors are retried (rate limited after the fake's retry-after, server errors and
 * network failures with capped backoff), the rest are not, and a stream that already
 * streamed text is never retried. Providers come from createProvider; sleep is injected.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
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

  it.each([
    ["a reset connection", { type: "cut", text: ["Hel", "lo"] }],
    ["a stream that ends without its finish", { type: "truncated", text: ["Hel", "lo"] }],
    ["an overload inside the stream", { type: "stream-error", text: ["Hel", "lo"], kind: "overloaded" }],
  ] as [string, FakeStep][])(
    "sends a call cut after some text (%s) again once, from the start",
    async (_name, step) => {
      const { provider, sleeps } = await setup([step, ok]);
      const { parts, response } = await collect(provider, simpleRequest(testCase.model));
      const restart = parts.findIndex((part) => part.type === "restart");
      expect(parts.slice(0, restart)).toEqual([
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo" },
      ]);
      expect(parts.slice(restart + 1).filter((part) => part.type === "text-delta")).toEqual([
        { type: "text-delta", text: "fine" },
      ]);
      expect(response.text).toBe("fine");
      expect(sleeps).toHaveLength(1);
      expect(fake?.requests).toHaveLength(2);
    },
  );

  it("gives up on a second cut after text: two requests, the error", async () => {
    const { provider } = await setup([{ type: "cut", text: ["Hel"] }, { type: "cut", text: ["Hel"] }, ok]);
    const { error, parts } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.network");
    expect(parts.filter((part) => part.type === "restart")).toHaveLength(1);
    expect(fake?.requests).toHaveLength(2);
  });

  it("sends a tool-call step cut half-way again, and gets the whole call", async () => {
    const call = { id: "call_1", name: "notes__add", argumentChunks: ['{"text":', '"hi"}'] };
    const { provider } = await setup([
      { type: "cut", toolCall: call },
      { type: "reply", toolCalls: [call], usage: { inputTokens: 5, outputTokens: 3 } },
    ]);
    const { parts, response } = await collect(provider, simpleRequest(testCase.model));
    expect(response.toolCalls).toEqual([
      expect.objectContaining({ name: "notes__add", argumentsJson: '{"text":"hi"}' }),
    ]);
    // Whatever the first attempt showed (Gemini's whole call) is voided before the second's.
    const restart = parts.findIndex((part) => part.type === "restart");
    expect(parts.slice(restart + 1).filter((part) => part.type === "tool-call")).toHaveLength(1);
    expect(fake?.requests).toHaveLength(2);
  });

  it.each([
    ["a bad key", { type: "error", kind: "auth" }],
    ["a key without access", { type: "error", kind: "forbidden" }],
    ["an unknown model", { type: "error", kind: "bad-request" }],
    ["an invalid parameter", { type: "error", kind: "invalid-request" }],
    ["a bad key inside the stream", { type: "stream-error", kind: "auth" }],
    ["an invalid request inside the stream", { type: "stream-error", kind: "invalid-request", text: ["Hel"] }],
    ["an unknown model inside the stream", { type: "stream-error", kind: "bad-request" }],
  ] as [string, FakeStep][])("%s costs exactly one request", async (_name, step) => {
    const { provider, sleeps } = await setup([step, ok, ok]);
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect(["provider.auth", "provider.invalid-request"]).toContain((error as ProviderError).code);
    expect(sleeps).toEqual([]);
    expect(fake?.requests).toHaveLength(1);
  });

  it("a wrong key costs exactly one request", async () => {
    fake = await testCase.start({ apiKey, steps: [ok, ok] });
    const provider = createProvider(
      testCase.type,
      providerConfigSchema.parse({
        apiKey: "wrong-key",
        baseUrl: fake.baseUrl,
        ...(testCase.api ? { api: testCase.api } : {}),
      }),
      silentLogger(),
      { env: {}, sleep: async () => {} },
    );
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.auth");
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ["429", { type: "error", kind: "rate-limited", retryAfter: "3" }, 3000],
    ["503/529 overloaded", { type: "error", kind: "overloaded", retryAfter: "2" }, 2000],
    ["retry-after-ms", { type: "error", kind: "overloaded", retryAfterMs: "1500" }, 1500],
    ["a rate limit inside the stream", { type: "stream-error", kind: "rate-limited" }, undefined],
    ["an overload inside the stream", { type: "stream-error", kind: "overloaded" }, 500],
  ] as [string, FakeStep, number | undefined][])(
    "sends nothing before the retry time of %s has passed",
    async (_name, step, waitMs) => {
      let release: () => void = () => {};
      const waits: number[] = [];
      fake = await testCase.start({ apiKey, steps: [step, ok] });
      const provider = createProvider(
        testCase.type,
        providerConfigSchema.parse({ apiKey, baseUrl: fake.baseUrl, ...(testCase.api ? { api: testCase.api } : {}) }),
        silentLogger(),
        {
          env: {},
          random: () => 0,
          sleep: (ms) => {
            waits.push(ms);
            return new Promise<void>((resolve) => {
              release = resolve;
            });
          },
        },
      );
      const answer = collect(provider, simpleRequest(testCase.model));
      await vi.waitFor(() => expect(waits).toHaveLength(1));
      // While the wait is on, the fake has seen the first request only.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fake.requests).toHaveLength(1);
      // Inside a stream only Gemini says when (its RetryInfo, 2 s in the fake); else the backoff.
      expect(waits).toEqual([waitMs ?? (testCase.type === "google" ? 2000 : 500)]);
      release();
      expect((await answer).response.text).toBe("fine");
      expect(fake.requests).toHaveLength(2);
    },
  );

  it("respects maxRetries for overloads: 1 + maxRetries requests, then the error", async () => {
    const overloaded: FakeStep = { type: "error", kind: "overloaded", retryAfter: "1" };
    const { provider, sleeps } = await setup([overloaded, overloaded, overloaded, overloaded, ok], { maxRetries: 1 });
    const { error } = await failure(provider, simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.server");
    expect(sleeps).toEqual([1000]);
    expect(fake?.requests).toHaveLength(2);
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
