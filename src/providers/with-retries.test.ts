import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/roundtable-error.js";
import { silentLogger } from "../log/logger.js";
import type { ModelProvider, ModelRequest, StreamPart } from "./model-provider.js";
import { realSleep, retryDelay, withRetries } from "./with-retries.js";

const request: ModelRequest = { model: "m", system: "", messages: [{ role: "user", text: "hi" }], tools: [] };
const finish: StreamPart = {
  type: "finish",
  response: {
    text: "ok",
    toolCalls: [],
    usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
    finishReason: "stop",
  },
};

/** A provider that plays one scripted attempt per call: parts, then maybe an error. */
function scripted(attempts: { parts?: StreamPart[]; error?: unknown }[]): ModelProvider & { calls: number } {
  const provider = {
    name: "scripted",
    calls: 0,
    async *stream(): AsyncIterable<StreamPart> {
      const attempt = attempts[provider.calls] ?? { parts: [finish] };
      provider.calls += 1;
      for (const part of attempt.parts ?? []) yield part;
      if (attempt.error !== undefined) throw attempt.error;
    },
  };
  return provider;
}

async function run(provider: ModelProvider, signal?: AbortSignal) {
  const parts: StreamPart[] = [];
  try {
    for await (const part of provider.stream(request, signal)) parts.push(part);
    return { parts, error: undefined };
  } catch (error: unknown) {
    return { parts, error };
  }
}

const server = () => new ProviderError("provider.server", "boom");

describe("retryDelay", () => {
  const options = {
    logger: silentLogger(),
    maxRetries: 5,
    baseDelayMs: 1_000,
    maxDelayMs: 8_000,
    random: () => 0.999_999,
  };
  it("doubles per retry up to the cap, with jitter between half and all of the step", () => {
    expect([0, 1, 2, 3, 4].map((retry) => retryDelay(server(), retry, options))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000,
    ]);
    expect(retryDelay(server(), 2, { ...options, random: () => 0 })).toBe(2_000);
  });
  it("honours retry-after up to its cap and never retries non-transient errors or past maxRetries", () => {
    const limited = (ms: number) => new ProviderError("provider.rate-limited", "slow", { retryAfterMs: ms });
    expect(retryDelay(limited(12_345), 0, options)).toBe(12_345);
    expect(retryDelay(limited(61_000), 0, options)).toBeUndefined();
    expect(retryDelay(new ProviderError("provider.auth", "no"), 0, options)).toBeUndefined();
    expect(retryDelay(server(), 5, options)).toBeUndefined();
  });
});

describe("withRetries", () => {
  it("retries a transient failure that yielded nothing", async () => {
    const inner = scripted([{ error: server() }, { parts: [finish] }]);
    const sleeps: number[] = [];
    const { parts, error } = await run(
      withRetries(inner, { logger: silentLogger(), sleep: async (ms) => void sleeps.push(ms), random: () => 0 }),
    );
    expect(error).toBeUndefined();
    expect(parts).toEqual([finish]);
    expect(inner.calls).toBe(2);
    expect(sleeps).toEqual([500]);
  });

  it("sends a call that broke off after some output again from the start, once", async () => {
    const cut = () => new ProviderError("provider.network", "cut");
    const half: StreamPart = { type: "text-delta", text: "half" };
    const once = scripted([{ parts: [half], error: cut() }, { parts: [finish] }]);
    const sleeps: number[] = [];
    const retried = await run(
      withRetries(once, { logger: silentLogger(), sleep: async (ms) => void sleeps.push(ms), random: () => 0 }),
    );
    expect(retried.error).toBeUndefined();
    expect(retried.parts).toEqual([half, { type: "restart", code: "provider.network" }, finish]);
    expect(once.calls).toBe(2);
    expect(sleeps).toEqual([500]);

    // A second break after output surfaces; a failure before output after the restart is retried.
    const twice = scripted([{ parts: [half], error: cut() }, { error: server() }, { parts: [half], error: cut() }]);
    const given = await run(withRetries(twice, { logger: silentLogger(), sleep: async () => {} }));
    expect((given.error as ProviderError).code).toBe("provider.network");
    expect(given.parts).toEqual([half, { type: "restart", code: "provider.network" }, half]);
    expect(twice.calls).toBe(3);
  });

  it("does not send again what broke off with a final error, nor past maxRetries", async () => {
    const half: StreamPart = { type: "text-delta", text: "half" };
    const refused = scripted([{ parts: [half], error: new ProviderError("provider.auth", "no") }]);
    const one = await run(withRetries(refused, { logger: silentLogger(), sleep: async () => {} }));
    expect((one.error as ProviderError).code).toBe("provider.auth");
    expect(refused.calls).toBe(1);
    const cut = scripted([{ parts: [half], error: new ProviderError("provider.network", "cut") }]);
    const none = await run(withRetries(cut, { logger: silentLogger(), maxRetries: 0, sleep: async () => {} }));
    expect((none.error as ProviderError).code).toBe("provider.network");
    expect(none.parts).toEqual([half]);
    expect(cut.calls).toBe(1);
  });

  it("turns anything else a provider throws into a ProviderError", async () => {
    const inner = scripted([{ error: new SyntaxError("Unexpected token") }]);
    const { error } = await run(withRetries(inner, { logger: silentLogger(), sleep: async () => {} }));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("provider.malformed");
  });

  it("ends with provider.aborted when the signal fires during the wait", async () => {
    const inner = scripted([{ error: server() }, { parts: [finish] }]);
    const controller = new AbortController();
    const { error } = await run(
      withRetries(inner, { logger: silentLogger(), sleep: async () => controller.abort() }),
      controller.signal,
    );
    expect((error as ProviderError).code).toBe("provider.aborted");
    expect(inner.calls).toBe(1);
  });
});

describe("realSleep", () => {
  it("resolves at once when the signal aborts", async () => {
    const controller = new AbortController();
    const waiting = realSleep(3_600_000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
