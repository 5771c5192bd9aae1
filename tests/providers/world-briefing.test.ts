/**
 * Agents know the room: every request view carries, after the agent's own system prompt, a
 * briefing on the world (its name, the agents with their descriptions and the people, how to
 * address them, how turns pass between agents, the platform's formatting). Checked on the
 * wire, in what each provider's real SDK sent to its fake server, on every platform.
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import { chatKey, type Platform } from "../../src/world/chat-ref.js";
import { startAnthropicFake } from "../fakes/anthropic-server.js";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "../world/harness.js";

let harness: Harness | undefined;
let fake: FakeModelServer | undefined;
afterEach(async () => {
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

const formatting: Record<Platform, RegExp> = {
  slack: /Formatting: .*Slack formatting/,
  telegram: /Formatting: .*Telegram formatting.*4,096/,
  discord: /Formatting: Discord shows Markdown.*2,000/,
  console: /Formatting: plain text in a terminal/,
  web: /Formatting: Markdown .* is shown formatted/,
};

const descriptions = {
  alice: { description: "Runs the release checklist." },
  bob: { description: "Reviews changes." },
};

async function teamOn(platform: Platform, alice: ReturnType<typeof createProvider>, type: string) {
  return createHarness({
    agents: [
      { name: "alice", provider: alice, providerName: type, providerType: type },
      { name: "bob", provider: new ScriptedProvider([{ text: "ok" }]) },
    ],
    platform,
    agentConfig: descriptions,
  });
}

describe.each(["slack", "telegram", "discord", "console", "web"] as const)("the world briefing on %s", (platform) => {
  it("follows the system prompt in what the OpenAI SDK sends, and is never stored", async () => {
    fake = await startOpenAIFake({ apiKey: "sk-test" });
    fake.script({ type: "reply", text: ["Hi ana."] });
    const provider = createProvider(
      "openai",
      providerConfigSchema.parse({ apiKey: "sk-test", baseUrl: fake.baseUrl }),
      silentLogger(),
    );
    harness = await teamOn(platform, provider, "openai");
    await harness.say("@alice hello", { user: "ana" });
    await harness.idle();
    const body = fake.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    const system = body.messages[0];
    expect(system?.role).toBe("system");
    const text = system?.content ?? "";
    expect(text.startsWith("You are alice.\n\n## The room\n")).toBe(true);
    expect(text).toContain('You are @alice, an agent in the world "main"');
    expect(text).toContain("- @alice (you): Runs the release checklist.");
    expect(text).toContain("- @bob: Reviews changes.");
    expect(text).toContain("People here: @ana.");
    expect(text).toContain("Addressing another agent hands it the turn");
    expect(text).toMatch(/goes back to that agent automatically unless it addresses someone else/);
    expect(text).toMatch(formatting[platform]);
    // The conversation itself is unchanged: the briefing is not a message.
    expect(body.messages.slice(1)).toEqual([{ role: "user", content: "ana: @alice hello" }]);
    const stored = await harness.store.listMessages(chatKey(harness.chat()));
    expect(stored.some((message) => message.text.includes("## The room"))).toBe(false);
  });
});

describe("the world briefing on Anthropic", () => {
  it("is part of the system block the Anthropic SDK sends", async () => {
    fake = await startAnthropicFake({ apiKey: "ak-test" });
    fake.script({ type: "reply", text: ["Hi."] });
    const provider = createProvider(
      "anthropic",
      providerConfigSchema.parse({ apiKey: "ak-test", baseUrl: fake.origin }),
      silentLogger(),
    );
    harness = await teamOn("telegram", provider, "anthropic");
    await harness.say("@alice hello", { user: "ana" });
    await harness.idle();
    const body = fake.requests[0]?.body as { system: Array<{ type: string; text: string }> };
    expect(body.system[0]?.text).toMatch(/^You are alice\.\n\n## The room\nYou are @alice/);
    expect(body.system[0]?.text).toMatch(formatting.telegram);
  });
});
