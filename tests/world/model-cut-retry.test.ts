/**
 * A model stream cut after some text, through the whole service: the real SDK of each provider
 * against its fake, the world engine, and the real Telegram adapter on its fake Bot API. The
 * call is sent again from the start once; the chat's one post ends with the new text only;
 * both requests are charged; a second cut gives the failure notice; and the next question is
 * never answered with the cut one (docs/model-errors.md).
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import {
  everyNthCall,
  type FakeModelServer,
  type FakeServerOptions,
  type FakeStep,
  type RecordedRequest,
} from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { apiKey, providerCases } from "../providers/provider-harness.js";
import { ana } from "../telegram/helpers.js";
import { groupKey, type WorldTelegram, worldOnTelegram } from "../telegram/world-telegram.js";
import type { Harness } from "./harness.js";

let t: WorldTelegram | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await model?.close();
  model = undefined;
});

/** The service with alice on `type`'s fake; a retry's wait lasts until `waitBeforeRetry` resolves. */
async function world(
  testCase: (typeof providerCases)[number],
  options: {
    steps?: FakeStep[];
    respond?: (request: RecordedRequest) => FakeStep;
    fault?: FakeServerOptions["fault"];
  },
  waitBeforeRetry: () => Promise<void> = async () => {},
) {
  model = await testCase.start({
    apiKey,
    ...(options.steps ? { steps: options.steps } : {}),
    ...(options.respond ? { respond: options.respond } : {}),
    ...(options.fault ? { fault: options.fault } : {}),
  });
  const provider = createProvider(
    testCase.type,
    providerConfigSchema.parse({ apiKey, baseUrl: model.baseUrl, ...(testCase.api ? { api: testCase.api } : {}) }),
    silentLogger(),
    { env: {}, sleep: () => waitBeforeRetry(), random: () => 0 },
  );
  t = await worldOnTelegram({
    agents: [{ name: "alice", provider, providerName: testCase.type, providerType: testCase.type }],
    world: { defaultAgent: "alice" },
  });
  return { t, model };
}

async function usageTotals(h: Harness) {
  const rows = await h.store.listUsage({ world: "main" });
  return {
    calls: rows.reduce((sum, row) => sum + row.calls, 0),
    estimatedCalls: rows.reduce((sum, row) => sum + row.estimatedCalls, 0),
    tokens: rows.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0),
  };
}

const partial = "The release is blocked by ";
const retried = ["The release ", "is ready."];

describe.each(providerCases)("$label: a stream cut after some text", (testCase) => {
  it("is sent again once: one post, edited to the new text only, both requests charged", async () => {
    let shown: WorldTelegram | undefined;
    const { t, model } = await world(
      testCase,
      {
        steps: [
          { type: "cut", text: [partial, "a failing "] },
          { type: "reply", text: retried, usage: { inputTokens: 400, outputTokens: 6 } },
        ],
      },
      // The retry waits until the chat shows the partial answer: the post is then edited.
      async () => {
        await t.world.waitFor(() => (shown?.fake.callsTo("sendMessage").length ?? 0) >= 1, 5_000);
      },
    );
    shown = t;
    await t.say(ana, "@alice is the release ready?");

    expect(model.requests).toHaveLength(2);
    expect(t.botTexts()).toEqual(["alice: The release is ready."]);
    // Posted once (the partial), then edited: never a second post, never a failure notice.
    expect(t.fake.callsTo("sendMessage")).toHaveLength(1);
    expect(t.botMessages()[0]?.editCount).toBeGreaterThanOrEqual(1);
    const stored = (await t.world.store.listMessages(groupKey)).filter((message) => message.author.kind === "agent");
    expect(stored.map((message) => message.text)).toEqual(["The release is ready."]);
    const turns = await t.world.store.listTurns({ chatKey: groupKey });
    expect(turns.map((turn) => turn.endReason)).toEqual(["answered"]);
    // Both requests are charged: the cut one at its estimate (no usage came), the retry as reported.
    const totals = await usageTotals(t.world);
    expect(totals).toMatchObject({ calls: 2, estimatedCalls: 1 });
    expect(totals.tokens).toBeGreaterThan(406);
  });

  it("cut twice: today's failure notice, the partial post removed, two requests", async () => {
    const { t, model } = await world(testCase, {
      steps: [
        { type: "cut", text: [partial] },
        { type: "truncated", text: [partial] },
        { type: "reply", text: ["never asked for"] },
      ],
    });
    await t.say(ana, "@alice is the release ready?");
    expect(model.requests).toHaveLength(2);
    expect(t.botTexts()).toEqual([expect.stringMatching(/Could not reach the model provider .*connection broke/)]);
    const totals = await usageTotals(t.world);
    expect(totals).toMatchObject({ calls: 2, estimatedCalls: 2 });
  });
});

/** OpenAI chat messages as text by role, whatever the content's shape. */
function conversation(request: RecordedRequest): { role: string; text: string }[] {
  const messages = (request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  return messages.map((message) => ({
    role: message.role,
    text:
      typeof message.content === "string"
        ? message.content
        : Array.isArray(message.content)
          ? message.content.map((part) => String((part as { text?: unknown }).text ?? "")).join("")
          : "",
  }));
}

/** The model: it answers the earliest question nobody has answered yet. */
function answerEarliestOpen(request: RecordedRequest): FakeStep {
  const open: string[] = [];
  for (const message of conversation(request)) {
    if (message.role === "user") open.push(...[...message.text.matchAll(/say (q\d+)/g)].map((match) => match[1] ?? ""));
    if (message.role === "assistant") {
      const answered = /re (q\d+)/.exec(message.text)?.[1];
      const at = answered === undefined ? -1 : open.indexOf(answered);
      if (at >= 0) open.splice(at, 1);
    }
  }
  return { type: "reply", text: ["re ", open[0] ?? "nothing open"] };
}

describe("the cut question", () => {
  it("is answered in its own turn, so the next turn answers the next question", async () => {
    const openai = providerCases[0];
    if (!openai) throw new Error("no openai case");
    let calls = 0;
    const { t, model } = await world(openai, {
      respond: answerEarliestOpen,
      // The first answer is cut after "re " (the role chunk and one text chunk).
      fault: () => (++calls === 1 ? { type: "cut-reply", afterFrames: 2 } : undefined),
    });
    await t.say(ana, "@alice say q1");
    await t.say(ana, "@alice say q2");
    expect(t.botTexts()).toEqual(["alice: re q1", "alice: re q2"]);
    expect(model.requests).toHaveLength(3);
  });

  it("twelve questions with a fault every third call: each answered once, in order", async () => {
    const openai = providerCases[0];
    if (!openai) throw new Error("no openai case");
    const { t, model } = await world(openai, {
      respond: answerEarliestOpen,
      fault: everyNthCall(3, [
        { type: "cut-reply", afterFrames: 2 },
        { type: "error", kind: "overloaded", retryAfter: "1" },
        { type: "cut-reply", afterFrames: 2, end: "clean" },
        { type: "stream-error", kind: "rate-limited", text: ["re "] },
      ]),
    });
    for (let question = 1; question <= 12; question += 1) await t.say(ana, `@alice say q${question}`);
    expect(t.botTexts()).toEqual(Array.from({ length: 12 }, (_, index) => `alice: re q${index + 1}`));
    // Each fault cost one request more: 12 answers, and a fault in every third request (5 of 17).
    expect(model.requests).toHaveLength(17);
  });

  it("the fault option keeps the scripted step for the retry", async () => {
    let calls = 0;
    const fake = await startOpenAIFake({
      steps: [{ type: "reply", text: ["whole"] }],
      fault: () => (++calls === 1 ? { type: "error", kind: "overloaded", retryAfter: "1" } : undefined),
    });
    try {
      const first = await fetch(`${fake.baseUrl}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [], stream: true }),
      });
      expect(first.status).toBe(503);
      expect(first.headers.get("retry-after")).toBe("1");
      expect(fake.pending).toBe(1);
    } finally {
      await fake.close();
    }
  });
});
