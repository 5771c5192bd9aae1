import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type { FakeModelServer, FakeStep } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
let server: FakeModelServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await server?.close();
  server = undefined;
});

const chat = "console:main:ana:";
/** A long message: a big request, the kind whose cost a stop used to hide. */
const bigMessage = `summarise this: ${"lorem ipsum dolor sit amet ".repeat(400)}`;

/** A world whose agent alice speaks to the fake OpenAI server through the real SDK. */
async function openAIWorld(limits: Record<string, number>, agentLimits: Record<string, unknown> = {}) {
  server = await startOpenAIFake({ apiKey: "sk-test" });
  harness = await createHarness({
    agents: [
      {
        name: "alice",
        providerName: "openai",
        providerType: "openai",
        limits: agentLimits,
        provider: createProvider(
          "openai",
          providerConfigSchema.parse({ apiKey: "sk-test", baseUrl: server.baseUrl, maxRetries: 0 }),
          silentLogger(),
        ),
      },
    ],
    world: { defaultAgent: "alice", limits: { messagesPerMinute: 100, ...limits } },
  });
  return { server, harness };
}

async function usageTotals(h: Harness) {
  const rows = await h.store.listUsage({ world: "main" });
  return {
    calls: rows.reduce((sum, row) => sum + row.calls, 0),
    estimatedCalls: rows.reduce((sum, row) => sum + row.estimatedCalls, 0),
    tokens: rows.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0),
  };
}

/** Asks, waits until the fake is streaming the answer, then stops the turn. */
async function askAndStop(h: Harness, fake: FakeModelServer, step: FakeStep): Promise<void> {
  const before = fake.requests.length;
  fake.script(step);
  await h.say(bigMessage);
  // The request reached the model: what it costs is spent from here on.
  await h.waitFor(() => fake.requests.length === before + 1, 5_000);
  await h.say("/stop");
  await h.idle();
}

const notices = (h: Harness) =>
  h.channel
    .messages()
    .filter((message) => message.author === "roundtable")
    .map((message) => message.text);

describe("every model request sent is charged", () => {
  it("ask-and-stop with tokensPerDay: 1: no request is sent at all, the notice names the limit", async () => {
    const { server: fake, harness: h } = await openAIWorld({ tokensPerDay: 1 });
    for (let round = 0; round < 3; round++) {
      fake.script({ type: "hang", text: ["Here is the start"] });
      await h.say(bigMessage);
      await h.idle();
      await h.say("/stop");
      await h.idle();
    }
    expect(fake.requests).toHaveLength(0);
    expect(await usageTotals(h)).toEqual({ calls: 0, estimatedCalls: 0, tokens: 0 });
    expect(notices(h)[0]).toMatch(
      /^This world cannot make the next model call within its daily budget \(it needs about \d+ tokens\) \(tokensPerDay: 1 tokens a day, 0 used\)/,
    );
  });

  it("a stopped call is charged its estimate (marked estimated) and the next call is refused", async () => {
    const { server: fake, harness: h } = await openAIWorld({ tokensPerDay: 4_000 });
    await askAndStop(h, fake, { type: "hang", text: ["Here is the start of a long summary"] });
    const turns = await h.store.listTurns({ chatKey: chat });
    expect(turns.map((turn) => turn.endReason)).toEqual(["stopped"]);
    const charged = await usageTotals(h);
    // The request's estimated input (the big message alone is ~2,700 tokens) plus the streamed text.
    expect(charged).toMatchObject({ calls: 1, estimatedCalls: 1 });
    expect(charged.tokens).toBeGreaterThan(2_700);

    // The next call would pass 4,000 with its estimate: never sent.
    fake.script({ type: "hang", text: ["again"] });
    await h.say(bigMessage);
    await h.idle();
    expect(fake.requests).toHaveLength(1);
    expect(await usageTotals(h)).toEqual(charged);
    expect(notices(h).at(-1)).toMatch(/^This world cannot make the next model call within its daily budget/);

    // roundtable usage marks the call as estimated.
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const code = await runCli(["usage"], {
      env: { DATABASE_URL: h.databaseUrl, LOG_LEVEL: "silent" },
      cwd: process.cwd(),
      stdin: new PassThrough(),
      stdout,
      stderr: new PassThrough(),
    });
    expect(code).toBe(0);
    expect(printed).toMatch(/CALLS\s+ESTIMATED CALLS\s+INPUT TOKENS\s+OUTPUT TOKENS\s+COST USD/);
    expect(printed).toMatch(/main\s+alice\s+1\s+1\s+\d+\s+\d+\s+\$0\.0000\n/);
    expect(printed).toContain("1 of the calls had no usage reported by the provider (stopped, timed out or failed)");
  });

  it("a failed call and a timed-out call are charged; a call the provider reports is charged its report", async () => {
    const { server: fake, harness: h } = await openAIWorld({ tokensPerDay: 1_000_000 }, { deadline: "2s" });
    fake.script({ type: "reply", text: ["fine"], usage: { inputTokens: 1_234, outputTokens: 56 } });
    await h.say("hello");
    await h.idle();
    expect(await usageTotals(h)).toEqual({ calls: 1, estimatedCalls: 0, tokens: 1_290 });

    fake.script({ type: "cut", text: ["a partial answer"] });
    await h.say(bigMessage);
    await h.idle();
    fake.script({ type: "hang", text: ["slow"] });
    await h.say(bigMessage);
    await h.idle();
    expect(fake.requests).toHaveLength(3);
    const turns = await h.store.listTurns({ chatKey: chat });
    expect(turns.map((turn) => turn.endReason)).toEqual(["answered", "provider-error", "deadline"]);
    const totals = await usageTotals(h);
    expect(totals).toMatchObject({ calls: 3, estimatedCalls: 2 });
    expect(totals.tokens).toBeGreaterThan(1_290 + 2 * 2_700);
  });

  it("32 people asking at once cannot overshoot the day: only the calls whose estimates fit are sent", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const alice = new ScriptedProvider(() => ({ text: "done", hold: held }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      concurrency: 32,
      // One big request's estimate (~2,700 tokens) fits the day, a second does not.
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 100, tokensPerDay: 4_000 } },
    });
    const h = harness;
    await Promise.all(
      Array.from({ length: 32 }, (_, index) =>
        h.say(bigMessage, { user: `person-${index}`, channel: `room-${index}` }),
      ),
    );
    // Every other call was refused while the first is in flight (its estimate still charged).
    await h.waitFor(() => notices(h).length === 31, 10_000);
    expect(alice.requests).toHaveLength(1);
    release();
    await h.idle();
    expect(alice.requests).toHaveLength(1);
    const totals = await usageTotals(h);
    expect(totals).toMatchObject({ calls: 1, estimatedCalls: 0 });
    expect(totals.tokens).toBeLessThanOrEqual(4_000);
  });
});
