/**
 * A model provider that refuses the key or the request, through the whole service with each
 * provider's real SDK against its fake: one request, no retry, the chat told what an operator
 * can fix, one log line with the cause and no secret (docs/model-errors.md).
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type { FakeModelServer, FakeStep } from "../fakes/model-fake-server.js";
import { apiKey, type ProviderCase, providerCases } from "../providers/provider-harness.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await model?.close();
  model = undefined;
});

const keyVariables = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY" };
const secret = "sk-wrong-secret-0123456789";

async function world(testCase: ProviderCase, steps: FakeStep[], options: { key?: string; model?: string } = {}) {
  model = await testCase.start({ apiKey, steps });
  const provider = createProvider(
    testCase.type,
    providerConfigSchema.parse({
      apiKey: options.key ?? apiKey,
      baseUrl: model.baseUrl,
      ...(testCase.api ? { api: testCase.api } : {}),
    }),
    silentLogger(),
    { env: {}, sleep: async () => {} },
  );
  harness = await createHarness({
    agents: [{ name: "alice", provider, providerName: testCase.type, providerType: testCase.type }],
    world: { defaultAgent: "alice" },
    agentConfig: { alice: { model: options.model ?? testCase.model } },
  });
  return { h: harness, fake: model };
}

const notices = (h: Harness) =>
  h.channel
    .messages()
    .filter((message) => message.author === "roundtable")
    .map((message) => message.text);

/** The log lines (pino JSON) with `msg`. */
const logLines = (h: Harness, msg: string) =>
  h
    .logs()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);

describe.each(providerCases)("$label refusals in the chat", (testCase) => {
  it("a wrong key: one request, the chat names the key to check, one log line without the key", async () => {
    const { h, fake } = await world(testCase, [{ type: "reply", text: ["never"] }], { key: secret });
    await h.say("hello");
    await h.idle();
    expect(fake.requests).toHaveLength(1);
    expect(notices(h)).toEqual([
      `The model provider (${testCase.type}) refused the API key; check ${keyVariables[testCase.type]}.`,
    ]);
    const failed = logLines(h, "provider call failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ code: "provider.auth", cause: expect.stringContaining(testCase.type) });
    expect(h.logs()).not.toContain("wrong-secret");
    expect(logLines(h, "provider call failed, retrying")).toHaveLength(0);
  });

  it("a bad key reported inside the stream: the same, one request", async () => {
    const { h, fake } = await world(testCase, [{ type: "stream-error", kind: "auth" }, { type: "reply" }]);
    await h.say("hello");
    await h.idle();
    expect(fake.requests).toHaveLength(1);
    expect(notices(h)).toEqual([
      `The model provider (${testCase.type}) refused the API key; check ${keyVariables[testCase.type]}.`,
    ]);
  });

  it("an unknown model: one request, the chat names the model", async () => {
    const { h, fake } = await world(testCase, [{ type: "error", kind: "bad-request" }, { type: "reply" }], {
      model: "gpt-x",
    });
    await h.say("hello");
    await h.idle();
    expect(fake.requests).toHaveLength(1);
    expect(notices(h)).toEqual([
      `The model provider (${testCase.type}) does not know the model gpt-x; an admin needs to check the agent's model.`,
    ]);
    expect(notices(h)[0]).not.toMatch(/problem on its side/);
  });

  it("an invalid request inside the stream after some text: one request, never 'a problem on its side'", async () => {
    const { h, fake } = await world(testCase, [
      { type: "stream-error", text: ["Sure"], kind: "invalid-request" },
      { type: "reply" },
    ]);
    await h.say("hello");
    await h.idle();
    expect(fake.requests).toHaveLength(1);
    expect(notices(h)).toEqual([
      expect.stringMatching(
        new RegExp(`^The model provider \\(${testCase.type}\\) rejected the request as invalid \\(.*temperature`),
      ),
    ]);
  });
});
