/**
 * Every error class, through each real SDK against its fake: the stable code, whether it is
 * transient, and the short chat message (no stack trace, no secret).
 */
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError, type ProviderErrorCode } from "../../src/errors/roundtable-error.js";
import { userMessageFor } from "../../src/providers/user-message.js";
import type { FakeModelServer, FakeStep } from "../fakes/model-fake-server.js";
import { apiKey, failure, providerCases, simpleRequest } from "./provider-harness.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface ErrorCase {
  name: string;
  step: FakeStep;
  code: ProviderErrorCode;
  transient: boolean;
  retryAfterMs?: number;
  /** The chat text, when it is not the code's standard one. */
  userMessage?: RegExp;
}

const errorCases: ErrorCase[] = [
  {
    name: "429 with retry-after",
    step: { type: "error", kind: "rate-limited", retryAfter: "7" },
    code: "provider.rate-limited",
    transient: true,
    retryAfterMs: 7000,
  },
  { name: "401 bad key", step: { type: "error", kind: "auth" }, code: "provider.auth", transient: false },
  {
    name: "context too long",
    step: { type: "error", kind: "context-too-long" },
    code: "provider.context-too-long",
    transient: false,
  },
  { name: "500", step: { type: "error", kind: "server" }, code: "provider.server", transient: true },
  { name: "overloaded", step: { type: "error", kind: "overloaded" }, code: "provider.server", transient: true },
  {
    name: "unknown model (404)",
    step: { type: "error", kind: "bad-request" },
    code: "provider.invalid-request",
    transient: false,
    userMessage: /does not know the model (gpt-4\.1|gpt-5|claude-opus-4-6|gemini-2\.5-flash); an admin needs to check/,
  },
  {
    name: "invalid parameter (400)",
    step: { type: "error", kind: "invalid-request" },
    code: "provider.invalid-request",
    transient: false,
    userMessage: /rejected the request as invalid \(HTTP 400: [^)]*(temperature)/,
  },
  {
    name: "403 key without access",
    step: { type: "error", kind: "forbidden" },
    code: "provider.auth",
    transient: false,
    userMessage: /refused the API key; check (OPENAI|ANTHROPIC|GEMINI)_API_KEY\.$/,
  },
  {
    name: "refusal with no output",
    step: { type: "reply", finish: "content-filter" },
    code: "provider.content-refused",
    transient: false,
  },
  {
    name: "malformed JSON mid-stream",
    step: { type: "malformed", text: ["Hel"] },
    code: "provider.malformed",
    transient: false,
  },
  {
    name: "connection cut mid-stream",
    step: { type: "cut", text: ["Hel", "lo wor"] },
    code: "provider.network",
    transient: true,
  },
  {
    name: "connection cut before headers",
    step: { type: "cut", beforeHeaders: true },
    code: "provider.network",
    transient: true,
  },
  {
    name: "stream ended without its end marker",
    step: { type: "truncated", text: ["Hel"] },
    code: "provider.network",
    transient: true,
  },
  {
    name: "error event inside the stream",
    step: { type: "stream-error", text: ["Hel"] },
    code: "provider.server",
    transient: true,
  },
  // Inside the stream an error is read by what it says, as over HTTP (docs/model-errors.md).
  {
    name: "bad key inside the stream",
    step: { type: "stream-error", kind: "auth" },
    code: "provider.auth",
    transient: false,
    userMessage: /refused the API key; check (OPENAI|ANTHROPIC|GEMINI)_API_KEY\.$/,
  },
  {
    name: "key without access inside the stream",
    step: { type: "stream-error", kind: "forbidden" },
    code: "provider.auth",
    transient: false,
    userMessage: /refused the API key/,
  },
  {
    name: "invalid request inside the stream",
    step: { type: "stream-error", text: ["Hel"], kind: "invalid-request" },
    code: "provider.invalid-request",
    transient: false,
    userMessage: /rejected the request as invalid/,
  },
  {
    name: "unknown model inside the stream",
    step: { type: "stream-error", kind: "bad-request" },
    code: "provider.invalid-request",
    transient: false,
    userMessage: /does not know the model/,
  },
  {
    name: "rate limit inside the stream",
    step: { type: "stream-error", kind: "rate-limited" },
    code: "provider.rate-limited",
    transient: true,
    userMessage: /rate limiting us/,
  },
  {
    name: "server error inside the stream",
    step: { type: "stream-error", text: ["Hel"], kind: "server" },
    code: "provider.server",
    transient: true,
  },
];

const keyVariables = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY" };

describe.each(providerCases)("$label errors", (testCase) => {
  it.each(errorCases)("$name → $code", async (errorCase) => {
    fake = await testCase.start({ apiKey, steps: [errorCase.step] });
    const { error, parts } = await failure(testCase.create(fake), simpleRequest(testCase.model));
    expect(error).toBeInstanceOf(ProviderError);
    const providerError = error as ProviderError;
    expect(providerError.code).toBe(errorCase.code);
    expect(providerError.transient).toBe(errorCase.transient);
    if (errorCase.retryAfterMs !== undefined) expect(providerError.retryAfterMs).toBe(errorCase.retryAfterMs);
    if (errorCase.userMessage) expect(providerError.userMessage).toMatch(errorCase.userMessage);
    else
      expect(providerError.userMessage).toBe(
        userMessageFor(errorCase.code, {
          provider: testCase.type,
          keySetting: keyVariables[testCase.type],
          ...(errorCase.retryAfterMs === undefined ? {} : { retryAfterMs: errorCase.retryAfterMs }),
        }),
      );
    expect(providerError.userMessage).not.toMatch(/\n\s+at |Error:|test-key|sk-/);
    // The log line (message) names the provider and the cause.
    expect(providerError.message).toContain(testCase.type);
    // A broken stream is an error, never a short answer.
    expect(parts.some((part) => part.type === "finish")).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it("a stream cut after some text surfaces the text it had, then the error", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "cut", text: ["Hel", "lo wor"] }] });
    const { error, parts } = await failure(testCase.create(fake), simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.network");
    expect(parts).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo wor" },
    ]);
  });

  it("a wrong key is provider.auth, and the chat is told which setting to check", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "reply", text: ["never sent"] }] });
    const { error } = await failure(testCase.create(fake, { apiKey: "wrong-key" }), simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.auth");
    expect((error as ProviderError).userMessage).not.toContain("wrong-key");
    expect((error as ProviderError).userMessage).toBe(
      `The model provider (${testCase.type}) refused the API key; check ${keyVariables[testCase.type]}.`,
    );
  });

  it("no key at all fails with provider.auth naming the variable, without a request", async () => {
    fake = await testCase.start({ apiKey });
    const { error } = await failure(testCase.create(fake, { apiKey: undefined }), simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.auth");
    expect((error as ProviderError).userMessage).toMatch(/_API_KEY/);
    expect(fake.requests).toHaveLength(0);
  });

  it("aborting through the AbortSignal mid-stream ends with provider.aborted", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "hang", text: ["thinking"] }] });
    const controller = new AbortController();
    const parts: string[] = [];
    let caught: unknown;
    try {
      for await (const part of testCase.create(fake).stream(simpleRequest(testCase.model), controller.signal)) {
        parts.push(part.type);
        if (part.type === "text-delta") controller.abort();
      }
    } catch (error: unknown) {
      caught = error;
    }
    expect(parts).toEqual(["text-delta"]);
    expect((caught as ProviderError).code).toBe("provider.aborted");
    expect((caught as ProviderError).transient).toBe(false);
  });

  it("a server that never answers times out as provider.network (transient)", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "stall" }] });
    const { error } = await failure(testCase.create(fake, { timeoutMs: 100 }), simpleRequest(testCase.model));
    expect((error as ProviderError).code).toBe("provider.network");
    expect((error as ProviderError).transient).toBe(true);
  });

  it("the timeout covers the wait for an answer, not the whole stream", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "hang", text: ["slow"] }] });
    const controller = new AbortController();
    // Generous, so a loaded machine still gets the headers in time.
    const provider = testCase.create(fake, { timeoutMs: 1_000 });
    const iterator = provider.stream(simpleRequest(testCase.model), controller.signal)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: "text-delta", text: "slow" } });
    // Well past the timeout the open stream is still alive: the next read waits until we abort.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const next = iterator.next().then(
      () => "more",
      (caught: unknown) => (caught as ProviderError).code,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await next).toBe("provider.aborted");
  });

  it("an already aborted signal sends nothing", async () => {
    fake = await testCase.start({ apiKey, steps: [{ type: "reply", text: ["x"] }] });
    const { error } = await failure(testCase.create(fake), simpleRequest(testCase.model), AbortSignal.abort());
    expect((error as ProviderError).code).toBe("provider.aborted");
    expect(fake.requests).toHaveLength(0);
  });
});
