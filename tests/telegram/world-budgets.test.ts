import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import { runCliInProcess } from "../cli/run-cli-in-process.js";
import type { FakeModelServer, FakeUsage } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import type { FakeUser, StoredMessage } from "../fakes/telegram-api.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { ana, groupId } from "./helpers.js";
import { boss, type WorldTelegram, type WorldTelegramOptions, worldOnTelegram } from "./world-telegram.js";

// Budgets (docs/budgets.md) through the real Telegram adapter on the fake Bot API, with each
// agent's model the fake OpenAI server behind the real SDK, reporting exact usage.

const bo: FakeUser = { id: 333, is_bot: false, first_name: "Bo" };
const otherGroup = -1009999;

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

let t: WorldTelegram | undefined;
let servers: FakeModelServer[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

// Every call reports 10 input and 15 output tokens; input is free, so a call costs exactly
// 15 × 100,000 / 1,000,000 = 1.50 USD and its reservation (the estimated input) costs nothing.
const usage: FakeUsage = { inputTokens: 10, outputTokens: 15 };
const price = { input: 0, output: 100_000 };

interface Agent {
  name: string;
  fake: FakeModelServer;
}

/** An agent whose model is a fake OpenAI server answering `text` with `usage`. */
async function modelAgent(name: string, text = "answer", reported: FakeUsage = usage): Promise<Agent> {
  const fake = await startOpenAIFake({ respond: () => ({ type: "reply", text: [text], usage: reported }) });
  servers.push(fake);
  return { name, fake };
}

async function start(
  agents: Agent[],
  options: Omit<WorldTelegramOptions, "agents"> & { agentPrice?: { input: number; output: number } | null } = {},
): Promise<WorldTelegram> {
  const { agentPrice = price, ...rest } = options;
  const world = await worldOnTelegram({
    ...rest,
    agents: agents.map((agent) => ({
      name: agent.name,
      providerName: `openai-${agent.name}`,
      provider: createProvider(
        "openai",
        providerConfigSchema.parse({ apiKey: "sk-test", baseUrl: agent.fake.baseUrl, maxRetries: 0 }),
        silentLogger(),
      ),
    })),
    agentConfig: Object.fromEntries(agents.map((agent) => [agent.name, agentPrice ? { price: agentPrice } : {}])),
  });
  world.fake.addChat({ id: otherGroup, type: "supergroup", title: "Other team" });
  return world;
}

const textsIn = (world: WorldTelegram, chatId: number) =>
  world.fake
    .messagesIn(chatId)
    .filter((message) => message.from.is_bot)
    .map((message) => message.text);
const notices = (world: WorldTelegram, chatId = groupId) =>
  textsIn(world, chatId).filter((text) => !/^\w+: /.test(text));

describe("budgets on Telegram, with a model that reports exact usage", () => {
  it("a person's cap stops only that person: Ana stopped, Bo answered", async () => {
    const alice = await modelAgent("alice");
    t = await start([alice], {
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, alerts: [] } },
    });
    await t.say(ana, "first");
    await t.say(ana, "second");
    await t.say(bo, "hello");
    expect(alice.fake.requests).toHaveLength(2);
    expect(t.botTexts()).toEqual([
      "alice: answer",
      expect.stringMatching(
        /^Ana reached their daily budget \(perPerson\.costPerDay: \$1\.00 a day, \$1\.50 used\); the agents answer Ana again after 00:00 UTC/,
      ),
      "alice: answer",
    ]);
  });

  it("an agent's cap stops only that agent: alice stopped, bob answers", async () => {
    const alice = await modelAgent("alice");
    const bob = await modelAgent("bob");
    t = await start([alice, bob], {
      world: { limits: { messagesPerMinute: 20, perAgent: { alice: { costPerDay: 1 } }, alerts: [] } },
    });
    await t.say(ana, "@alice first");
    await t.say(ana, "@alice second");
    await t.say(ana, "@bob hello");
    expect(alice.fake.requests).toHaveLength(1);
    expect(bob.fake.requests).toHaveLength(1);
    expect(t.botTexts()).toEqual([
      "alice: answer",
      expect.stringMatching(
        /^alice reached its daily budget \(perAgent\.alice\.costPerDay: \$1\.00 a day, \$1\.50 used\); alice answers again after 00:00 UTC/,
      ),
      "bob: answer",
    ]);
  });

  it("a chat's cap stops that chat and not another", async () => {
    const alice = await modelAgent("alice");
    t = await start([alice], {
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perChat: { costPerDay: 1 }, alerts: [] } },
    });
    await t.say(ana, "first");
    await t.say(ana, "second");
    await t.say(ana, "other", { chatId: otherGroup });
    expect(alice.fake.requests).toHaveLength(2);
    expect(textsIn(t, groupId)).toEqual([
      "alice: answer",
      expect.stringMatching(/^This chat reached its daily budget \(perChat\.costPerDay: \$1\.00 a day, \$1\.50 used\)/),
    ]);
    expect(textsIn(t, otherGroup)).toEqual(["alice: answer"]);
  });

  it("charges an agent-to-agent chain to the human who started it", async () => {
    const alice = await modelAgent("alice", "@bob over to you");
    const bob = await modelAgent("bob", "@alice back to you");
    t = await start([alice, bob]);
    await t.say(ana, "@alice start");
    const calls = alice.fake.requests.length + bob.fake.requests.length;
    expect(bob.fake.requests.length).toBeGreaterThan(0);
    const day = new Date().toISOString().slice(0, 10);
    const people = await t.world.store.listBuckets({ world: "main", scope: "person", period: day });
    expect(people.map((bucket) => [bucket.calls, bucket.costUsd])).toEqual([[calls, calls * 1.5]]);
    const byAgent = await t.world.store.listBuckets({ world: "main", scope: "agent", period: day });
    expect(byAgent.map((bucket) => [bucket.subject, bucket.calls])).toEqual([
      ["alice", alice.fake.requests.length],
      ["bob", bob.fake.requests.length],
    ]);
  });

  it("posts an alert once at its threshold, and not again after a restart on the same database", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const world = { defaultAgent: "alice", limits: { messagesPerMinute: 20, costPerMonth: 10, alerts: [20, 50] } };
    const alice = await modelAgent("alice");
    t = await start([alice], { databaseUrl, keepDatabase: true, world });
    await t.say(ana, "one");
    await t.say(ana, "two");
    expect(notices(t)).toEqual([
      expect.stringMatching(
        /^Budget alert: this world's monthly budget is 20% used \(costPerMonth: 3\.00 USD of 10\.00 USD\); it resets at /,
      ),
    ]);
    // The same group after the restart: Telegram goes on numbering its messages.
    const next = Math.max(...t.fake.messagesIn(groupId).map((message) => message.message_id)) + 1;
    await t.close();
    t = await start([alice], {
      databaseUrl,
      keepDatabase: true,
      world,
      beforeStart: (fake) => fake.continueMessageIds(groupId, next),
    });
    await t.say(ana, "three");
    expect(notices(t)).toEqual([]);
    await t.say(ana, "four");
    expect(notices(t)).toEqual([
      expect.stringMatching(
        /^Budget alert: this world's monthly budget is 50% used \(costPerMonth: 6\.00 USD of 10\.00 USD\)/,
      ),
    ]);
    await t.say(ana, "five");
    expect(notices(t)).toHaveLength(1);
    expect(alice.fake.requests).toHaveLength(5);
  });

  it("/usage in the chat and usage --by person --json: the fake's usage × price", async () => {
    // 1,000 input and 200 output tokens a call at 2 and 10 USD per million: 0.004 USD a call.
    const alice = await modelAgent("alice", "done", { inputTokens: 1_000, outputTokens: 200 });
    t = await start([alice], {
      agentPrice: { input: 2, output: 10 },
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 } } },
    });
    await t.say(ana, "one");
    await t.say(ana, "two");
    await t.say(bo, "three");
    expect(alice.fake.requests).toHaveLength(3);
    await t.say(ana, "/usage");
    expect(alice.fake.requests).toHaveLength(3);
    const lines = (t.botTexts().at(-1) ?? "").split("\n");
    expect(lines[0]).toBe("Ana: Model usage (UTC):");
    expect(lines[1]).toMatch(
      /^You \(.+\), today \(\d{4}-\d\d-\d\d\): 0\.0080 USD, 2400 tokens \(perPerson\.costPerDay: 0\.0080 USD of 1\.00 USD\)$/,
    );
    expect(lines[3]).toMatch(/^This chat, today \(.+\): 0\.0120 USD, 3600 tokens \(no cap\)$/);
    expect(lines[5]).toMatch(/^This world, today \(.+\): 0\.0120 USD, 3600 tokens \(no cap\)$/);

    const run = await runCliInProcess(["usage", "--by", "person", "--json"], {
      env: { DATABASE_URL: t.world.databaseUrl, LOG_LEVEL: "silent" },
    });
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as { by: string; rows: Record<string, string | number>[] };
    expect(parsed.by).toBe("person");
    const rows = parsed.rows.map((row) => [
      row.calls,
      row.inputTokens,
      row.outputTokens,
      Number(Number(row.costUsd).toFixed(10)),
    ]);
    expect(rows).toEqual([
      [2, 2_000, 400, 0.008],
      [1, 1_000, 200, 0.004],
    ]);
  });
  it("unpriced: count-tokens: an unpriced model is charged against the token cap only", async () => {
    // 1,200 tokens a call: the second call passes tokensPerDay: 2000; the cost cap never bites.
    const alice = await modelAgent("alice", "answer", { inputTokens: 1_000, outputTokens: 200 });
    t = await start([alice], {
      agentPrice: null,
      world: {
        defaultAgent: "alice",
        limits: { messagesPerMinute: 20, tokensPerDay: 2_000, costPerDay: 0.01, unpriced: "count-tokens", alerts: [] },
      },
    });
    await t.say(ana, "first");
    await t.say(ana, "second");
    await t.say(ana, "third");
    expect(alice.fake.requests).toHaveLength(2);
    expect(t.botTexts()).toEqual([
      "alice: answer",
      "alice: answer",
      expect.stringMatching(
        /^This world reached its daily budget \(tokensPerDay: 2000 tokens a day, 2400 used\); the agents answer again after 00:00 UTC/,
      ),
    ]);
    const day = new Date().toISOString().slice(0, 10);
    const [bucket] = await t.world.store.listBuckets({ world: "main", scope: "world", period: day });
    expect(bucket).toMatchObject({ calls: 2, costUsd: 0 });
  });

  describe("overBudget: ask", () => {
    const askWorld = {
      defaultAgent: "alice",
      approvers: { telegram: [String(boss.id)] },
      limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, overBudget: "ask" as const, alerts: [] },
    };

    /** Ana's second message would pass her cap: the card, and the button data for `label`. */
    async function cardFor(world: WorldTelegram) {
      await world.say(ana, "first");
      await world.say(ana, "second");
      const cards = world.botMessages().filter((message) => message.reply_markup !== undefined);
      expect(cards).toHaveLength(1);
      const card = cards[0] as StoredMessage;
      const buttons = (card.reply_markup as Keyboard).inline_keyboard.flat();
      const data = (label: RegExp) => buttons.find((button) => label.test(button.text))?.callback_data ?? "";
      return { card, buttons, data };
    }

    it("a non-approver's press is refused; an approver's runs the call and raises the cap by raiseBy", async () => {
      const alice = await modelAgent("alice");
      t = await start([alice], { world: askWorld });
      const { card, buttons, data } = await cardFor(t);
      expect(alice.fake.requests).toHaveLength(1);
      expect(card.text).toContain("alice's call would pass Ana's daily budget (1.00 USD): allow 1.00 USD more today?");
      expect(buttons.length).toBeGreaterThan(0);

      const refused = await t.press(ana, card.message_id, data(/Approve/));
      expect(t.fake.callbackAnswers.get(refused)).toEqual({
        text: "You are not allowed to decide this approval: only this world's approvers may.",
        show_alert: true,
      });
      expect(alice.fake.requests).toHaveLength(1);

      const approved = await t.press(boss, card.message_id, data(/Approve/));
      expect(t.fake.callbackAnswers.get(approved)?.show_alert).toBe(false);
      await t.world.idle();
      expect(alice.fake.requests).toHaveLength(2);
      expect(t.botTexts().filter((text) => text === "alice: answer")).toHaveLength(2);
      const day = new Date().toISOString().slice(0, 10);
      const [bucket] = await t.world.store.listBuckets({ world: "main", scope: "person", period: day });
      expect(bucket).toMatchObject({ calls: 2, costUsd: 3, raisedCostUsd: 1 });
    });

    it("denied: a notice and no model request at the fake", async () => {
      const alice = await modelAgent("alice");
      t = await start([alice], { world: askWorld });
      const { card, data } = await cardFor(t);
      const denied = await t.press(boss, card.message_id, data(/Deny/));
      expect(t.fake.callbackAnswers.get(denied)?.show_alert).toBe(false);
      await t.world.idle();
      expect(alice.fake.requests).toHaveLength(1);
      expect(t.botTexts().at(-1)).toMatch(
        /^alice's call would pass Ana's budget \(perPerson\.costPerDay\), and was not made \(denied by Boss\)\.$/,
      );
    });

    it("nobody decides in time: a notice naming Ana and no model request at the fake", async () => {
      const alice = await modelAgent("alice");
      t = await start([alice], { world: { ...askWorld, approvalTimeout: "1s" } });
      await cardFor(t);
      await t.world.waitFor(() => (t?.botTexts().at(-1) ?? "").includes("nobody decided in time"), 10_000);
      await t.world.idle();
      expect(alice.fake.requests).toHaveLength(1);
      expect(t.botTexts().at(-1)).toBe(
        "alice's call would pass Ana's budget (perPerson.costPerDay), and was not made (nobody decided in time).",
      );
    });
  });
});
