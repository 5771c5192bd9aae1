import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type { Store } from "../../src/world/store.js";
import { startAnthropicFake } from "../fakes/anthropic-server.js";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";

const servers: FakeModelServer[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function history(store: Store, chatKey: string): Promise<string> {
  const messages = await store.listMessages(chatKey);
  const calls = await store.listToolCalls({ chatKey });
  const results = await store.listToolResults(calls.map((call) => call.id));
  return JSON.stringify({ messages, calls, results });
}

describe("switching an agent's provider mid-chat", () => {
  it("keeps working (other provider's tool calls masked in the view) and leaves stored history byte-identical", async () => {
    const openai = await startOpenAIFake({ apiKey: "sk-test" });
    const anthropic = await startAnthropicFake({ apiKey: "ak-test" });
    servers.push(openai, anthropic);
    openai.script(
      {
        type: "reply",
        text: ["Checking ", "both."],
        toolCalls: [
          { id: "call_a", name: "shell_cmd", argumentChunks: ['{"command":"echo",', '"args":["one"]}'] },
          { id: "call_b", name: "shell_cmd", argumentChunks: ['{"command":"echo","args":["two"]}'] },
        ],
      },
      { type: "reply", text: ["Both said hello."] },
    );
    anthropic.script({ type: "reply", text: ["Still here, now on Anthropic."] });
    const logger = silentLogger();
    const databaseUrl = temporaryDatabaseUrl();
    const common = { databaseUrl, keepDatabase: true, tools: { approval: { shell_cmd: "never" } } };

    harness = await createHarness({
      ...common,
      agents: [
        {
          name: "alice",
          providerName: "openai",
          providerType: "openai",
          tools: ["shell_cmd"],
          provider: createProvider(
            "openai",
            providerConfigSchema.parse({ apiKey: "sk-test", baseUrl: openai.baseUrl }),
            logger,
          ),
        },
      ],
    });
    await harness.say("@alice check both");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["Checking both.", "Both said hello."]);
    const chatKey = "console:main:ana:";
    const before = await history(harness.store, chatKey);
    await harness.close();

    harness = await createHarness({
      ...common,
      agents: [
        {
          name: "alice",
          providerName: "anthropic",
          providerType: "anthropic",
          tools: ["shell_cmd"],
          provider: createProvider(
            "anthropic",
            providerConfigSchema.parse({ apiKey: "ak-test", baseUrl: anthropic.origin }),
            logger,
          ),
        },
      ],
    });
    await harness.say("@alice still there?");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["Still here, now on Anthropic."]);

    // The Anthropic request carried the OpenAI-made calls as text, not as tool_use blocks.
    const body = JSON.stringify(anthropic.requests[0]?.body);
    expect(body).toContain("[called tool shell_cmd with");
    expect(body).not.toContain('"tool_use"');
    expect(body).not.toContain("call_a");

    // What was stored before the switch is unchanged, byte for byte.
    const after = JSON.parse(await history(harness.store, chatKey)) as {
      messages: unknown[];
      calls: unknown[];
      results: unknown[];
    };
    const old = JSON.parse(before) as { messages: unknown[]; calls: unknown[]; results: unknown[] };
    expect(JSON.stringify(after.messages.slice(0, old.messages.length))).toBe(JSON.stringify(old.messages));
    expect(JSON.stringify(after.calls)).toBe(JSON.stringify(old.calls));
    expect(JSON.stringify(after.results)).toBe(JSON.stringify(old.results));
  });
});
