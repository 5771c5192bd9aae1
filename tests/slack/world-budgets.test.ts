import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type { FakeModelServer, FakeUsage } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { ana, channel, eve, modes, type WorldSlack, type WorldSlackOptions, worldOnSlack } from "./world-slack.js";

// Budgets (docs/budgets.md) through the real Slack adapter (Bolt) on the fake Slack, with the
// agent's model the fake OpenAI server behind the real SDK, reporting exact usage.

const boss = "U9BOSS";

let t: WorldSlack | undefined;
let fake: FakeModelServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await fake?.close();
  fake = undefined;
});

async function start(
  options: Omit<WorldSlackOptions, "agents" | "agentConfig">,
  reported: FakeUsage,
  price: { input: number; output: number },
): Promise<{ world: WorldSlack; model: FakeModelServer }> {
  const model = await startOpenAIFake({ respond: () => ({ type: "reply", text: ["answer"], usage: reported }) });
  fake = model;
  const world = await worldOnSlack({
    ...options,
    agents: [
      {
        name: "alice",
        providerName: "openai-alice",
        provider: createProvider(
          "openai",
          providerConfigSchema.parse({ apiKey: "sk-test", baseUrl: model.baseUrl, maxRetries: 0 }),
          silentLogger(),
        ),
      },
    ],
    agentConfig: { alice: { price } },
  });
  t = world;
  return { world, model };
}

// 10 input and 15 output tokens a call, input free: exactly 1.50 USD a call, nothing reserved.
const wholeCalls = { usage: { inputTokens: 10, outputTokens: 15 }, price: { input: 0, output: 100_000 } };
const replyTexts = (world: WorldSlack, threadTs: string) => world.replies(threadTs).map((reply) => reply.text);

describe.each(modes)("budgets on Slack, with a model that reports exact usage (%s)", (mode) => {
  it("a person's cap stops only that person: Ana's second thread gets the notice, Eve is answered", async () => {
    const { world, model } = await start(
      {
        mode,
        world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, alerts: [] } },
      },
      wholeCalls.usage,
      wholeCalls.price,
    );
    const first = await world.say(ana, "first");
    const second = await world.say(ana, "second");
    const third = await world.say(eve, "hello");
    expect(model.requests).toHaveLength(2);
    expect(replyTexts(world, first.ts)).toEqual(["answer"]);
    expect(replyTexts(world, second.ts)).toEqual([
      expect.stringMatching(
        /^Ana reached their daily budget \(perPerson\.costPerDay: \$1\.00 a day, \$1\.50 used\); the agents answer Ana again after 00:00 UTC/,
      ),
    ]);
    expect(replyTexts(world, third.ts)).toEqual(["answer"]);
  });

  it("overBudget: ask: a non-approver's click is refused privately; the approver's runs the call and raises the cap", async () => {
    const { world, model } = await start(
      {
        mode,
        chats: { [channel]: "main" },
        world: {
          defaultAgent: "alice",
          approvers: { slack: [boss] },
          limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, overBudget: "ask", alerts: [] },
        },
      },
      wholeCalls.usage,
      wholeCalls.price,
    );
    await world.say(ana, "first");
    const second = await world.say(ana, "second");
    const [card] = world.cards(second.ts);
    if (!card) throw new Error("no card");
    expect(JSON.stringify(card.blocks)).toContain(
      "alice's call would pass Ana's daily budget (1.00 USD): allow 1.00 USD more today?",
    );
    expect(model.requests).toHaveLength(1);

    await world.press(eve, card, /Approve/);
    expect(world.fake.ephemerals.map((each) => [each.user, each.text])).toEqual([
      [eve, expect.stringMatching(/^You are not allowed to decide/)],
    ]);
    expect(model.requests).toHaveLength(1);

    await world.press(boss, card, /Approve/);
    expect(model.requests).toHaveLength(2);
    expect(replyTexts(world, second.ts).at(-1)).toBe("answer");
    const day = new Date().toISOString().slice(0, 10);
    const [bucket] = await world.world.store.listBuckets({ world: "main", scope: "person", period: day });
    expect(bucket).toMatchObject({ calls: 2, costUsd: 3, raisedCostUsd: 1 });
  });

  it("/roundtable usage answers privately with the fake's usage × price", async () => {
    // 1,000 input and 200 output tokens a call at 2 and 10 USD per million: 0.004 USD a call.
    const { world, model } = await start(
      { mode, world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 } } } },
      { inputTokens: 1_000, outputTokens: 200 },
      { input: 2, output: 10 },
    );
    await world.say(ana, "one");
    await world.say(ana, "two");
    await world.say(eve, "three");
    expect(model.requests).toHaveLength(3);
    const posts = world.fake.botPosts(channel).length;
    expect((await world.fake.slashCommand({ user: ana, channel, text: "usage" })).status).toBe(200);
    await world.world.waitFor(() => world.fake.ephemerals.some((each) => each.user === ana));
    const lines = (world.fake.ephemerals.find((each) => each.user === ana)?.text ?? "").split("\n");
    expect(lines[0]).toBe("Model usage (UTC):");
    expect(lines[1]).toMatch(
      /^You \(.+\), today \(\d{4}-\d\d-\d\d\): 0\.0080 USD, 2400 tokens \(perPerson\.costPerDay: 0\.0080 USD of 1\.00 USD\)$/,
    );
    expect(lines.find((line) => line.startsWith("This world, today"))).toMatch(
      /: 0\.0120 USD, 3600 tokens \(no cap\)$/,
    );
    expect(world.fake.botPosts(channel)).toHaveLength(posts);
    expect(model.requests).toHaveLength(3);
  });
});
