/**
 * The built-in scripted model (`type: scripted`) through the real tool loop, store, queue and
 * shell tool: it lists files through `shell_cmd` (behind an approval), answers from the
 * result, and passes a question to another agent and the answer back to the person without
 * reaching the turn limit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import { ScriptedModelProvider } from "../../src/providers/scripted/scripted-model-provider.js";
import { createHarness, type Harness } from "../world/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const scripted = () => new ScriptedModelProvider({ name: "scripted", pieceDelayMs: 0 });

async function twoAgents() {
  return createHarness({
    agents: [
      { name: "alice", provider: scripted(), providerName: "scripted", providerType: "scripted", tools: ["shell_cmd"] },
      { name: "bob", provider: scripted(), providerName: "scripted", providerType: "scripted" },
    ],
    platform: "web",
  });
}

describe("the scripted model", () => {
  it("lists files through shell_cmd after an approval and answers from the listing", async () => {
    harness = await twoAgents();
    await harness.say("@alice please list the files");
    await harness.idle();
    const [card] = harness.channel.cards();
    expect(card?.card).toMatchObject({
      agent: "alice",
      tool: "shell_cmd",
      argumentsJson: '{"command":"ls","args":["-la"]}',
    });
    await harness.click(card?.card.approvalId ?? "", "once");
    await harness.idle();
    const texts = harness.channel.messages().map((message) => message.text);
    expect(texts[0]).toBe("Let me look at the files.");
    expect(texts[1]).toMatch(/^Here is what it printed:\n\n```\ntotal \d+\n/);
    expect(texts[1]).toContain(" ..\n");
  });

  it("asks another agent when told to and reports the answer to the person, well within the turn limit", async () => {
    harness = await twoAgents();
    await harness.say("@alice ask @bob what he thinks of the plan", { user: "ana" });
    await harness.idle();
    const posted = harness.channel.messages().map((message) => ({ by: message.author, text: message.text }));
    expect(posted.map((message) => message.by)).toEqual(["alice", "bob", "alice"]);
    expect(posted[0]?.text).toMatch(/^@bob ana asks: what he thinks of the plan/);
    expect(posted[1]?.text).toMatch(/^@alice /);
    expect(posted[2]?.text).toMatch(/^@ana bob says: /);
    expect(posted.some((message) => /turn limit|limit of/i.test(message.text))).toBe(false);
  });

  it("is what `provider: scripted` makes, with no key and no providers entry needed", async () => {
    const provider = createProvider("scripted", providerConfigSchema.parse({}), silentLogger());
    const parts: string[] = [];
    for await (const part of provider.stream({
      model: "anything",
      system: "You are @alice, an agent.",
      messages: [{ role: "user", text: "ana: hello" }],
      tools: [],
    })) {
      if (part.type === "text-delta") parts.push(part.text);
    }
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.join("")).toMatch(/^Hello ana! I am @alice/);
  });
});
