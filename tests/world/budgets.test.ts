import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../cli/run-cli-in-process.js";
import type { ModelProvider, StreamPart } from "../../src/providers/model-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, type HarnessOptions, temporaryDatabaseUrl } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

// Every call reports 10 input and 15 output tokens; input is free, so a call costs exactly
// 15 × 100,000 / 1,000,000 = 1.50 USD and its reservation (the estimated input) costs nothing.
const usage = { inputTokens: 10, outputTokens: 15 };
const price = { input: 0, output: 100_000 };
const at = Date.parse("2026-11-24T22:30:00Z");
const texts = (h: Harness) => h.channel.messages().map((message) => message.text);
const notices = (h: Harness) => texts(h).filter((text) => text !== "answer" && !text.startsWith("@"));

function agents(...names: string[]) {
  const providers = names.map((name) => new ScriptedProvider(() => ({ text: "answer", usage }), name));
  return {
    providers,
    options: {
      agents: names.map((name, index) => ({ name, provider: providers[index] as ScriptedProvider })),
      platform: "telegram",
      agentConfig: Object.fromEntries(names.map((name) => [name, { price }])),
      worldClock: () => new Date(at),
    } satisfies Partial<HarnessOptions>,
  };
}

describe("budgets for people, agents and chats", () => {
  it("a person's cap stops only that person: Ana stopped, Bo answered", async () => {
    const { providers, options } = agents("alice");
    harness = await createHarness({
      ...options,
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, alerts: [100] } },
    });
    await harness.say("first", { user: "ana" });
    await harness.idle();
    await harness.say("second", { user: "ana" });
    await harness.idle();
    await harness.say("hello", { user: "bo" });
    await harness.idle();
    expect(providers[0]?.requests).toHaveLength(2);
    expect(notices(harness)).toEqual([
      "Budget alert: ana's daily budget is 100% used (perPerson.costPerDay: 1.50 USD of 1.00 USD); it resets at 00:00 UTC (in 90 minutes).",
      "ana reached their daily budget (perPerson.costPerDay: $1.00 a day, $1.50 used); the agents answer ana again after 00:00 UTC (in 90 minutes).",
      "Budget alert: bo's daily budget is 100% used (perPerson.costPerDay: 1.50 USD of 1.00 USD); it resets at 00:00 UTC (in 90 minutes).",
    ]);
    const people = await harness.store.listBuckets({ world: "main", scope: "person", period: "2026-11-24" });
    expect(people.map((bucket) => [bucket.subject, bucket.calls, bucket.costUsd])).toEqual([
      ["ana", 1, 1.5],
      ["bo", 1, 1.5],
    ]);
  });

  it("an agent's cap stops only that agent: alice stopped, bob answers", async () => {
    const { providers, options } = agents("alice", "bob");
    harness = await createHarness({
      ...options,
      world: {
        defaultAgent: "alice",
        limits: { messagesPerMinute: 20, perAgent: { alice: { costPerDay: 1 } }, alerts: [] },
      },
    });
    await harness.say("@alice first");
    await harness.idle();
    await harness.say("@alice second");
    await harness.idle();
    await harness.say("@bob hello");
    await harness.idle();
    expect(providers[0]?.requests).toHaveLength(1);
    expect(providers[1]?.requests).toHaveLength(1);
    expect(notices(harness)).toEqual([
      "alice reached its daily budget (perAgent.alice.costPerDay: $1.00 a day, $1.50 used); alice answers again after 00:00 UTC (in 90 minutes).",
    ]);
  });

  it("a chat's cap stops only that chat, and a month cap names the month's end", async () => {
    const { providers, options } = agents("alice");
    harness = await createHarness({
      ...options,
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perChat: { costPerMonth: 1 }, alerts: [] } },
    });
    await harness.say("first", { channel: "chat-1" });
    await harness.idle();
    await harness.say("second", { channel: "chat-1" });
    await harness.idle();
    await harness.say("other", { channel: "chat-2" });
    await harness.idle();
    expect(providers[0]?.requests).toHaveLength(2);
    expect(notices(harness)).toEqual([
      "This chat reached its monthly budget (perChat.costPerMonth: $1.00 a month, $1.50 used); the agents answer here again after 2026-12-01 00:00 UTC (in 6 days).",
    ]);
    const chatOf = (text: string) => harness?.channel.messages().find((message) => message.text === text)?.chat;
    expect(chatOf(notices(harness)[0] ?? "")?.channel).toBe("chat-1");
  });

  it("charges an agent-to-agent turn to the human who started the chain", async () => {
    const alice = new ScriptedProvider(() => ({ text: "@bob over to you", usage }), "alice");
    const bob = new ScriptedProvider(() => ({ text: "answer", usage }), "bob");
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      platform: "telegram",
      agentConfig: { alice: { price }, bob: { price } },
      worldClock: () => new Date(at),
      world: { defaultAgent: "alice" },
    });
    await harness.say("@alice start", { user: "ana" });
    await harness.idle();
    // The two agents address each other back and forth until the turn limit: every call is ana's.
    const calls = alice.requests.length + bob.requests.length;
    expect(bob.requests.length).toBeGreaterThan(0);
    const people = await harness.store.listBuckets({ world: "main", scope: "person", period: "2026-11" });
    expect(people.map((bucket) => [bucket.subject, bucket.calls, bucket.costUsd])).toEqual([
      ["ana", calls, calls * 1.5],
    ]);
    const byAgent = await harness.store.listBuckets({ world: "main", scope: "agent", period: "2026-11-24" });
    expect(byAgent.map((bucket) => [bucket.subject, bucket.calls])).toEqual([
      ["alice", alice.requests.length],
      ["bob", bob.requests.length],
    ]);
  });

  it("posts each alert once per cap, threshold and period, across a restart", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const limits = { messagesPerMinute: 20, costPerMonth: 10, alerts: [20, 50] };
    const start = async () => {
      const { options } = agents("alice");
      return createHarness({ ...options, databaseUrl, keepDatabase: true, world: { defaultAgent: "alice", limits } });
    };
    harness = await start();
    for (const text of ["one", "two"]) {
      await harness.say(text);
      await harness.idle();
    }
    expect(notices(harness)).toEqual([
      "Budget alert: this world's monthly budget is 20% used (costPerMonth: 3.00 USD of 10.00 USD); it resets at 2026-12-01 00:00 UTC (in 6 days).",
    ]);
    await harness.close();
    harness = await start();
    for (const text of ["three", "four", "five"]) {
      await harness.say(text);
      await harness.idle();
    }
    // After the restart: 20 % is not posted again; 50 % once.
    expect(notices(harness)).toEqual([
      "Budget alert: this world's monthly budget is 50% used (costPerMonth: 6.00 USD of 10.00 USD); it resets at 2026-12-01 00:00 UTC (in 6 days).",
    ]);
  });

  it("an alert recorded by a process that died before posting it is posted by the next call, once", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const limits = { messagesPerMinute: 20, costPerMonth: 10, alerts: [20] };
    const { options } = agents("alice");
    harness = await createHarness({ ...options, databaseUrl, world: { defaultAgent: "alice", limits } });
    // The record a process wrote just before it was killed, its notice never stored.
    expect(
      await harness.store.recordBudgetAlert({
        world: "main",
        cap: "costPerMonth",
        subject: "",
        period: "2026-11",
        threshold: 20,
      }),
    ).toBe(true);
    for (const text of ["one", "two", "three"]) {
      await harness.say(text);
      await harness.idle();
    }
    expect(notices(harness)).toEqual([
      "Budget alert: this world's monthly budget is 20% used (costPerMonth: 3.00 USD of 10.00 USD); it resets at 2026-12-01 00:00 UTC (in 6 days).",
    ]);
  });

  it("usage --by person|agent|chat|world --json: the fake's usage × price, per subject", async () => {
    // 1,000 input and 200 output tokens a call at 2 and 10 USD per million: 0.004 USD a call.
    const script = () => ({ text: "answer", usage: { inputTokens: 1_000, outputTokens: 200 } });
    const alice = new ScriptedProvider(script, "alice");
    const bob = new ScriptedProvider(script, "bob");
    const agentPrice = { input: 2, output: 10 };
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      platform: "telegram",
      agentConfig: { alice: { price: agentPrice }, bob: { price: agentPrice } },
      world: { defaultAgent: "alice" },
    });
    await harness.say("@alice one", { user: "ana" });
    await harness.say("@bob two", { user: "ana" });
    await harness.say("@alice three", { user: "bo", channel: "chat-2" });
    await harness.idle();
    const env = { DATABASE_URL: harness.databaseUrl, LOG_LEVEL: "silent" };
    const by = async (scope: string, month = false) => {
      const run = await runCliInProcess(["usage", "--by", scope, "--json", ...(month ? ["--month"] : [])], { env });
      expect(run.code).toBe(0);
      const parsed = JSON.parse(run.stdout) as { rows: Record<string, string | number>[] };
      return parsed.rows.map((row) => [row[scope], row.calls, row.inputTokens, row.outputTokens, row.costUsd]);
    };
    const cost = (calls: number) => Number((calls * 0.004).toFixed(10));
    const round = (rows: (string | number | undefined)[][]) =>
      rows.map((row) => [...row.slice(0, 4), Number(Number(row[4]).toFixed(10))]);
    expect(round(await by("person"))).toEqual([
      ["ana", 2, 2_000, 400, cost(2)],
      ["bo", 1, 1_000, 200, cost(1)],
    ]);
    expect(round(await by("agent"))).toEqual([
      ["alice", 2, 2_000, 400, cost(2)],
      ["bob", 1, 1_000, 200, cost(1)],
    ]);
    expect(round(await by("chat", true))).toEqual([
      ["telegram::chat-1:", 2, 2_000, 400, cost(2)],
      ["telegram::chat-2:", 1, 1_000, 200, cost(1)],
    ]);
    expect(round(await by("world"))).toEqual([["", 3, 3_000, 600, cost(3)]]);
    const refused = await runCliInProcess(["usage", "--by", "team"], { env });
    expect(refused.code).not.toBe(0);
  });

  it("a call cut and sent again once: both attempts land in every bucket once, settled to their usage", async () => {
    // The first attempt streams a little, reports its usage and breaks off; the resend answers.
    let calls = 0;
    const cut: ModelProvider = {
      name: "cut",
      async *stream(): AsyncIterable<StreamPart> {
        calls++;
        yield { type: "text-delta", text: "half an" };
        yield { type: "usage", usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0 } };
        yield { type: "restart", code: "provider.network" };
        yield { type: "text-delta", text: "answer" };
        const full = { inputTokens: 10, outputTokens: 15, cachedInputTokens: 0 };
        yield { type: "usage", usage: full };
        yield { type: "finish", response: { text: "answer", toolCalls: [], usage: full, finishReason: "stop" } };
      },
    };
    harness = await createHarness({
      ...agents("alice").options,
      agents: [{ name: "alice", provider: cut }],
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 100 }, alerts: [] } },
    });
    await harness.say("hello", { user: "ana" });
    await harness.idle();
    expect(calls).toBe(1);
    expect(texts(harness)).toContain("answer");
    const day = "2026-11-24";
    const keys = [
      { scope: "world", subject: "", period: day },
      { scope: "world", subject: "", period: "2026-11" },
      { scope: "agent", subject: "alice", period: day },
      { scope: "chat", subject: "telegram::chat-1:", period: day },
      { scope: "person", subject: "ana", period: day },
    ] as const;
    const buckets = await harness.store.readBuckets("main", keys);
    expect(buckets).toHaveLength(keys.length);
    for (const bucket of buckets) {
      expect(bucket).toMatchObject({ calls: 2, estimatedCalls: 0, inputTokens: 17, outputTokens: 18 });
      expect(bucket.costUsd).toBeCloseTo(1.8, 9);
    }
    const [row] = await harness.store.listUsage({ world: "main" });
    expect(row).toMatchObject({ agent: "alice", calls: 2, estimatedCalls: 0, inputTokens: 17, outputTokens: 18 });
  });

  it("a cut call is sent again only within the caps: past one, the resend is not made and the chat says so", async () => {
    // The request is estimated at 179 tokens: it fits Ana's 300-token day, and after the first
    // attempt's 280 its resend does not.
    let resent = false;
    const cut: ModelProvider = {
      name: "cut",
      async *stream(): AsyncIterable<StreamPart> {
        yield { type: "text-delta", text: "half an" };
        yield { type: "usage", usage: { inputTokens: 250, outputTokens: 30, cachedInputTokens: 0 } };
        yield { type: "restart", code: "provider.network" };
        resent = true;
        yield { type: "text-delta", text: "answer" };
        const full = { inputTokens: 10, outputTokens: 15, cachedInputTokens: 0 };
        yield { type: "finish", response: { text: "answer", toolCalls: [], usage: full, finishReason: "stop" } };
      },
    };
    harness = await createHarness({
      ...agents("alice").options,
      agents: [{ name: "alice", provider: cut }],
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { tokensPerDay: 300 }, alerts: [] } },
    });
    await harness.say("hello", { user: "ana" });
    await harness.idle();
    expect(resent).toBe(false);
    expect(texts(harness)).not.toContain("answer");
    expect(notices(harness).at(-1)).toMatch(
      /^ana cannot make the next model call within their daily budget \(it needs about \d+ tokens\) \(perPerson\.tokensPerDay: 300 tokens a day, 280 used\)/,
    );
    const [person] = await harness.store.readBuckets("main", [
      { scope: "person", subject: "ana", period: "2026-11-24" },
    ]);
    expect(person).toMatchObject({ calls: 1, estimatedCalls: 0, inputTokens: 250, outputTokens: 30 });
  });

  describe("overBudget: ask", () => {
    const askWorld = {
      defaultAgent: "alice",
      approvers: { telegram: ["boss"] },
      limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 }, overBudget: "ask" as const, alerts: [] },
    };

    it("the call past a cap becomes a card; a non-approver is refused; approved → the cap is raised and the call runs", async () => {
      // The real clock: the queue runs a card's expiry step at the world's time.
      const { providers, options } = agents("alice");
      harness = await createHarness({ ...options, worldClock: () => new Date(), world: askWorld });
      await harness.say("first", { user: "ana" });
      await harness.idle();
      await harness.say("second", { user: "ana" });
      await harness.idle();
      expect(providers[0]?.requests).toHaveLength(1);
      const [card] = harness.channel.cards();
      expect(card?.card.tool).toBe("budget");
      expect(card?.card.argumentsPreview).toBe(
        "alice's call would pass ana's daily budget (1.00 USD): allow 1.00 USD more today?",
      );
      const approvalId = card?.card.approvalId ?? "";
      expect((await harness.click(approvalId, "once", { user: "ana" })).status).toBe("not-allowed");
      expect(providers[0]?.requests).toHaveLength(1);
      expect((await harness.click(approvalId, "once", { user: "boss" })).status).toBe("decided");
      await harness.idle();
      expect(providers[0]?.requests).toHaveLength(2);
      expect(texts(harness).filter((text) => text === "answer")).toHaveLength(2);
      const [bucket] = await harness.store.readBuckets("main", [
        { scope: "person", subject: "ana", period: new Date().toISOString().slice(0, 10) },
      ]);
      expect(bucket).toMatchObject({ costUsd: 3, raisedCostUsd: 1 });
    });

    it("the person past their own cap never decides its card, even where approvers default to the requester", async () => {
      const { providers, options } = agents("alice");
      const world = { ...askWorld, approvers: { telegram: ["requester"] } };
      harness = await createHarness({ ...options, worldClock: () => new Date(), world });
      await harness.say("first", { user: "ana" });
      await harness.idle();
      await harness.say("second", { user: "ana" });
      await harness.idle();
      const [card] = harness.channel.cards();
      expect(card?.card.tool).toBe("budget");
      expect((await harness.click(card?.card.approvalId ?? "", "once", { user: "ana" })).status).toBe("not-allowed");
      await harness.idle();
      expect(providers[0]?.requests).toHaveLength(1);
    });

    it("denied → a notice and no model call", async () => {
      // The real clock: the queue runs a card's expiry step at the world's time.
      const { providers, options } = agents("alice");
      harness = await createHarness({ ...options, worldClock: () => new Date(), world: askWorld });
      await harness.say("first", { user: "ana" });
      await harness.idle();
      await harness.say("second", { user: "ana" });
      await harness.idle();
      const [card] = harness.channel.cards();
      expect((await harness.click(card?.card.approvalId ?? "", "deny", { user: "boss" })).status).toBe("decided");
      await harness.idle();
      expect(providers[0]?.requests).toHaveLength(1);
      expect(notices(harness).at(-1)).toMatch(
        /^alice's call would pass ana's budget \(perPerson\.costPerDay\), and was not made \(denied by .+\)\.$/,
      );
    });
  });
});
