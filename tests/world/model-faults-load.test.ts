/**
 * Model faults under load in several chats at once (docs/model-errors.md): four Telegram chats,
 * each sent a burst of questions, every second model call of each chat a fault (a stream cut
 * after text, a 529/503 with `retry-after`, an overload or rate limit inside the open stream, a
 * cut with a clean end). The real SDK of each provider against its fake. Every question answered
 * once, in its chat's order, with the exact text; each fault cost exactly one more request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import type {
  FakeFault,
  FakeModelServer,
  FakeServerOptions,
  FakeStep,
  RecordedRequest,
} from "../fakes/model-fake-server.js";
import { apiKey, providerCases } from "../providers/provider-harness.js";
import { ana, mainToken } from "../telegram/helpers.js";
import { leadingMention, type WorldTelegram, worldOnTelegram } from "../telegram/world-telegram.js";

let t: WorldTelegram | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await model?.close();
  model = undefined;
});

/** The messages of a request as text by role, whatever the provider's shape (OpenAI, Anthropic, Gemini). */
function conversation(request: RecordedRequest): { role: string; text: string }[] {
  const body = request.body as {
    messages?: { role: string; content?: unknown }[];
    contents?: { role: string; parts?: { text?: unknown }[] }[];
  };
  const textOf = (content: unknown): string =>
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part) => String((part as { text?: unknown }).text ?? "")).join("")
        : "";
  if (body.contents) {
    return body.contents.map((entry) => ({
      role: entry.role === "model" ? "assistant" : entry.role,
      text: textOf(entry.parts),
    }));
  }
  return (body.messages ?? []).map((message) => ({ role: message.role, text: textOf(message.content) }));
}

/** The model of the chaos harness: it answers the earliest question of its view nobody answered. */
function answerEarliestOpen(request: RecordedRequest): FakeStep {
  const open: string[] = [];
  for (const message of conversation(request)) {
    if (message.role === "user")
      open.push(...[...message.text.matchAll(/say (c\d+q\d+)/g)].map((match) => match[1] ?? ""));
    if (message.role === "assistant") {
      const answered = /re (c\d+q\d+)/.exec(message.text)?.[1];
      const at = answered === undefined ? -1 : open.indexOf(answered);
      if (at >= 0) open.splice(at, 1);
    }
  }
  return { type: "reply", text: ["re ", open[0] ?? "nothing open"] };
}

/**
 * The `every`-th model call of each chat (told by its questions, `say c<chat>q<n>`) a fault, the
 * faults played in turn across chats. Counted per chat, a fault's retry (the chat's next call)
 * is never one: with one count for all chats, how the chats' calls interleave decided whether a
 * retry met the next fault, and two in a row end a turn with the provider's error.
 */
function everyNthCallOfItsChat(every: number, faults: readonly FakeFault[]): NonNullable<FakeServerOptions["fault"]> {
  const calls = new Map<string, number>();
  let played = 0;
  return (request) => {
    const chat = /say (c\d+)q/.exec(conversation(request).find((message) => message.role === "user")?.text ?? "")?.[1];
    const call = (calls.get(chat ?? "") ?? 0) + 1;
    calls.set(chat ?? "", call);
    if (call % every !== 0) return undefined;
    const fault = faults[played % faults.length];
    played += 1;
    return fault;
  };
}

const chats = [-1001, -1002, -1003, -1004];
const questions = 4;

describe.each(providerCases.filter((testCase) => testCase.label !== "openai-responses"))(
  "$label: model faults in four chats at once",
  (testCase) => {
    it("every question answered once, in its chat's order, with the exact text; one request more per fault", async () => {
      // Cut after the first text: Anthropic opens with message_start, ping and content_block_start.
      const afterFrames = testCase.type === "anthropic" ? 4 : 2;
      model = await testCase.start({
        apiKey,
        respond: answerEarliestOpen,
        fault: everyNthCallOfItsChat(2, [
          { type: "cut-reply", afterFrames },
          { type: "error", kind: "overloaded", retryAfter: "1" },
          { type: "stream-error", kind: "overloaded", text: ["re "] },
          { type: "cut-reply", afterFrames, end: "clean" },
          { type: "stream-error", kind: "rate-limited", text: ["re "] },
        ]),
      });
      const provider = createProvider(
        testCase.type,
        providerConfigSchema.parse({ apiKey, baseUrl: model.baseUrl }),
        silentLogger(),
        { env: {}, sleep: async () => {}, random: () => 0 },
      );
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider, providerName: testCase.type, providerType: testCase.type }],
        world: { defaultAgent: "alice" },
      });
      for (const chatId of chats) t.fake.addChat({ id: chatId, type: "supergroup", title: `chat ${chatId}` });
      // Every chat's burst at once: the turns of four chats run side by side.
      let last: Parameters<WorldTelegram["settle"]>[0] | undefined;
      for (let question = 1; question <= questions; question += 1) {
        for (const [index, chatId] of chats.entries()) {
          const text = `@alice say c${index + 1}q${question}`;
          last = t.fake.userMessage(mainToken, { chatId, from: ana, text, entities: leadingMention(text) }).update;
        }
      }
      if (!last) throw new Error("nothing sent");
      await t.settle(last);
      const world = t;
      await world.world.waitFor(() =>
        chats.every(
          (chatId) => world.fake.messagesIn(chatId).filter((message) => message.from.is_bot).length >= questions,
        ),
      );
      await world.world.idle();
      for (const [index, chatId] of chats.entries()) {
        const shown = world.fake
          .messagesIn(chatId)
          .filter((message) => message.from.is_bot)
          .map((message) => message.text);
        expect(shown).toEqual(Array.from({ length: questions }, (_, at) => `alice: re c${index + 1}q${at + 1}`));
      }
      // 16 answers; each chat's second, fourth and sixth call a fault, each costing one more: 12 of 28.
      expect(model.requests).toHaveLength(28);
      // What was sent is charged: the 16 answers and the 9 attempts cut after text, not the three
      // 529s (the 2nd, 7th and 12th fault played).
      const usage = await world.world.store.listUsage({ world: "main" });
      expect(usage.reduce((sum, row) => sum + row.calls, 0)).toBe(25);
    });
  },
);
