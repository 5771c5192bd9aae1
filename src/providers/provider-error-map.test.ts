import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/roundtable-error.js";
import { providerErrorFromFailure, providerErrorFromStatus, retryAfterFromHeaders } from "./provider-error-map.js";

describe("retryAfterFromHeaders", () => {
  it("reads retry-after-ms, retry-after seconds and an HTTP date", () => {
    expect(retryAfterFromHeaders(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1_500);
    expect(retryAfterFromHeaders(new Headers({ "retry-after": "7" }))).toBe(7_000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterFromHeaders(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterFromHeaders(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });
});

describe("providerErrorFromStatus", () => {
  const map = (status: number | undefined, kinds: string[], apiMessage: string, retryAfterMs?: number) =>
    providerErrorFromStatus({
      provider: "p",
      status,
      kinds,
      apiMessage,
      cause: undefined,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });

  it.each([
    [429, [], "slow down", "provider.rate-limited", true],
    [401, [], "", "provider.auth", false],
    [403, ["PERMISSION_DENIED"], "", "provider.auth", false],
    [
      400,
      ["INVALID_ARGUMENT", "API_KEY_INVALID"],
      "API key not valid. Please pass a valid API key.",
      "provider.auth",
      false,
    ],
    [413, ["request_too_large"], "", "provider.context-too-long", false],
    [
      400,
      ["invalid_request_error"],
      "prompt is too long: 208310 tokens > 200000 maximum",
      "provider.context-too-long",
      false,
    ],
    [400, [], "This model's maximum context length is 8192 tokens", "provider.context-too-long", false],
    [400, ["content_policy_violation"], "", "provider.content-refused", false],
    [500, [], "", "provider.server", true],
    [529, ["overloaded_error"], "", "provider.server", true],
    [408, [], "", "provider.server", true],
    [undefined, ["overloaded_error"], "Overloaded", "provider.server", true],
    [404, ["not_found_error"], "model: x", "provider.invalid-request", false],
    [400, ["invalid_request_error"], "temperature: range: 0..1", "provider.invalid-request", false],
    // Inside a stream (no status) the kind decides, as the SDK notes say (docs/model-errors.md).
    [undefined, ["invalid_request_error", "invalid_api_key"], "Incorrect API key", "provider.auth", false],
    [undefined, ["authentication_error"], "invalid x-api-key", "provider.auth", false],
    [undefined, ["permission_error"], "", "provider.auth", false],
    [undefined, ["invalid_request_error"], "Unsupported value", "provider.invalid-request", false],
    [undefined, ["invalid_request_error", "model_not_found"], "", "provider.invalid-request", false],
    [undefined, ["rate_limit_exceeded"], "", "provider.rate-limited", true],
    [undefined, ["server_error"], "", "provider.server", true],
    [undefined, ["overloaded"], "", "provider.server", true],
    // The Responses API's response.failed codes.
    [undefined, ["invalid_prompt"], "Invalid prompt", "provider.invalid-request", false],
    [undefined, ["server_error"], "The server had an error", "provider.server", true],
    [503, ["UNAVAILABLE"], "The model is overloaded.", "provider.server", true],
  ] as const)("HTTP %s %j %j → %s (transient %s)", (status, kinds, message, code, transient) => {
    const error = map(status, [...kinds], message);
    expect(error.code).toBe(code);
    expect(error.transient).toBe(transient);
  });

  it("names the setting of a refused key and the unknown model, and masks keys", () => {
    const refused = (provider: string) =>
      providerErrorFromStatus({ provider, status: 401, kinds: [], apiMessage: "", cause: undefined }).userMessage;
    expect(refused("openai")).toBe("The model provider (openai) refused the API key; check OPENAI_API_KEY.");
    expect(refused("openrouter")).toBe(
      "The model provider (openrouter) refused the API key; check providers.openrouter.apiKey.",
    );
    const unknown = providerErrorFromStatus({
      provider: "openai",
      status: 404,
      kinds: ["invalid_request_error", "model_not_found"],
      apiMessage: "The model `gpt-x` does not exist or you do not have access to it.",
      model: "gpt-x",
      cause: undefined,
    });
    expect(unknown.userMessage).toBe(
      "The model provider (openai) does not know the model gpt-x; an admin needs to check the agent's model.",
    );
    const key = map(401, ["invalid_api_key"], "Incorrect API key provided: sk-abcdef123456.");
    expect(key.message).not.toContain("sk-abcdef");
    expect(key.message).toContain("[key]");
  });

  it("treats an exhausted quota as final unless the provider says when to retry", () => {
    expect(map(429, ["insufficient_quota"], "You exceeded your current quota").transient).toBe(false);
    expect(map(429, ["insufficient_quota"], "You exceeded your current quota").userMessage).toMatch(/quota/);
    const perMinute = map(429, ["RESOURCE_EXHAUSTED"], "You exceeded your current quota", 7_000);
    expect(perMinute.transient).toBe(true);
    expect(perMinute.retryAfterMs).toBe(7_000);
  });
});

describe("providerErrorFromFailure", () => {
  it("tells our abort from a timeout, and keeps ProviderErrors as they are", () => {
    const abort = Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
    expect(providerErrorFromFailure("p", abort, AbortSignal.abort()).code).toBe("provider.aborted");
    expect(providerErrorFromFailure("p", abort, new AbortController().signal).code).toBe("provider.network");
    const own = new ProviderError("provider.auth", "x");
    expect(providerErrorFromFailure("p", own, undefined)).toBe(own);
    expect(
      providerErrorFromFailure("p", new TypeError("terminated", { cause: new Error("other side closed") }), undefined)
        .code,
    ).toBe("provider.network");
    expect(providerErrorFromFailure("p", new SyntaxError("Unexpected end of JSON input"), undefined).code).toBe(
      "provider.malformed",
    );
  });
});
