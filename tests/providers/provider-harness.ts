/**
 * The three providers, each paired with its fake server, so one test body runs against all
 * of them (`describe.each(providerCases)`); OpenAI runs twice, once per API.
 */
import { AnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { GoogleProvider } from "../../src/providers/google/google-provider.js";
import type { LLMResponse, ModelProvider, ModelRequest, StreamPart } from "../../src/providers/model-provider.js";
import { OpenAIProvider } from "../../src/providers/openai/openai-provider.js";
import { startAnthropicFake } from "../fakes/anthropic-server.js";
import { startGeminiFake } from "../fakes/gemini-server.js";
import type { FakeModelServer, FakeServerOptions } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";

export const apiKey = "test-key";

export interface ProviderCase {
  /** Test titles: the type, or `openai-responses` for the Responses API. */
  label: string;
  type: "openai" | "anthropic" | "google";
  /** OpenAI only: which API the provider speaks. */
  api?: "chat" | "responses";
  model: string;
  start(options?: FakeServerOptions): Promise<FakeModelServer>;
  create(
    fake: FakeModelServer,
    options?: { apiKey?: string | undefined; newCallId?: () => string; timeoutMs?: number },
  ): ModelProvider;
}

let geminiIds = 0;

export const providerCases: ProviderCase[] = [
  {
    label: "openai",
    type: "openai",
    model: "gpt-4.1",
    start: startOpenAIFake,
    create: (fake, options = {}) =>
      new OpenAIProvider({
        name: "openai",
        apiKey: "apiKey" in options ? options.apiKey : apiKey,
        baseUrl: fake.baseUrl,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
  },
  {
    label: "openai-responses",
    type: "openai",
    api: "responses",
    model: "gpt-5",
    start: startOpenAIFake,
    create: (fake, options = {}) =>
      new OpenAIProvider({
        name: "openai",
        api: "responses",
        apiKey: "apiKey" in options ? options.apiKey : apiKey,
        baseUrl: fake.baseUrl,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
  },
  {
    label: "anthropic",
    type: "anthropic",
    model: "claude-opus-4-6",
    start: startAnthropicFake,
    create: (fake, options = {}) =>
      new AnthropicProvider({
        name: "anthropic",
        apiKey: "apiKey" in options ? options.apiKey : apiKey,
        baseUrl: fake.baseUrl,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
  },
  {
    label: "google",
    type: "google",
    model: "gemini-2.5-flash",
    start: startGeminiFake,
    create: (fake, options = {}) =>
      new GoogleProvider({
        name: "google",
        apiKey: "apiKey" in options ? options.apiKey : apiKey,
        baseUrl: fake.baseUrl,
        newCallId: options.newCallId ?? (() => `gemini_call_${++geminiIds}`),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
  },
];

/** Every part of one call, and the response of its `finish` part. */
export async function collect(
  provider: ModelProvider,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<{ parts: StreamPart[]; response: LLMResponse }> {
  const parts: StreamPart[] = [];
  for await (const part of provider.stream(request, signal)) parts.push(part);
  const last = parts.at(-1);
  if (last?.type !== "finish") throw new Error(`stream ended without finish: ${JSON.stringify(parts)}`);
  return { parts, response: last.response };
}

/** The error a call threw (the test fails if it did not throw), with the parts before it. */
export async function failure(
  provider: ModelProvider,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<{ error: unknown; parts: StreamPart[] }> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of provider.stream(request, signal)) parts.push(part);
  } catch (error: unknown) {
    return { error, parts };
  }
  throw new Error(`expected the call to fail, got ${JSON.stringify(parts)}`);
}

export function simpleRequest(model: string): ModelRequest {
  return {
    model,
    system: "You are alice, a careful release engineer.",
    messages: [{ role: "user", text: "ana: @alice hello" }],
    tools: [],
  };
}
