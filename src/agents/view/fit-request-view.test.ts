import { describe, expect, it } from "vitest";
import type { ModelRequest, ToolDefinition, ViewMessage } from "../../providers/model-provider.js";
import { estimateRequestTokens } from "./estimate-tokens.js";
import { fitRequestView, type ViewTarget } from "./fit-request-view.js";

const tools: ToolDefinition[] = [
  {
    name: "notes__add",
    description: "Add a note.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  },
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const openaiOrigin = { provider: "openai", model: "gpt-4.1" };

function target(overrides: Partial<ViewTarget> = {}): ViewTarget {
  return {
    provider: "anthropic",
    model: "claude-opus-4-6",
    providerType: "anthropic",
    budgetTokens: 200_000,
    reserveOutputTokens: 8_000,
    ...overrides,
  };
}

function request(messages: ViewMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "claude-opus-4-6", system: "You are alice.", messages, tools, ...extra };
}

/** A chat where alice (under OpenAI) called a tool, then a new question. */
function openaiHistory(): ViewMessage[] {
  return [
    { role: "user", text: "ana: @alice note x" },
    {
      role: "assistant",
      text: "Noting.",
      toolCalls: [
        {
          id: "call_1",
          name: "notes__add",
          argumentsJson: '{"text":"x"}',
          providerFields: { openai: { extra_content: { a: 1 } } },
        },
      ],
      origin: openaiOrigin,
    },
    { role: "tool", toolCallId: "call_1", toolName: "notes__add", text: "note 1 added", origin: openaiOrigin },
    { role: "assistant", text: "Done.", toolCalls: [], origin: openaiOrigin },
    { role: "user", text: "ana: @alice what did you note?" },
  ];
}

/** Checks no call is without its result and no result without its call, in order. */
function expectPairsIntact(messages: ViewMessage[]): void {
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant" && message.toolCalls.length > 0) {
      const results = [];
      for (let next = index + 1; messages[next]?.role === "tool"; next += 1) results.push(messages[next]);
      expect(results.map((result) => (result as { toolCallId: string }).toolCallId).sort()).toEqual(
        message.toolCalls.map((call) => call.id).sort(),
      );
    }
    if (message.role === "tool") {
      let back = index - 1;
      while (messages[back]?.role === "tool") back -= 1;
      const owner = messages[back];
      expect(owner?.role).toBe("assistant");
      expect((owner as { toolCalls: { id: string }[] }).toolCalls.map((call) => call.id)).toContain(message.toolCallId);
    }
  }
}

describe("fitRequestView masking", () => {
  it("masks tool calls and results made under another provider type into plain text", () => {
    const input = deepFreeze(request(openaiHistory()));
    const { request: view, cuts } = fitRequestView(input, target());
    expect(view.messages[1]).toEqual({
      role: "assistant",
      text: 'Noting.\n[called tool notes__add with {"text":"x"}]',
      toolCalls: [],
      origin: openaiOrigin,
    });
    expect(view.messages[2]).toEqual({ role: "user", text: "[result of notes__add: note 1 added]" });
    expect(view.messages.filter((message) => message.role === "tool")).toEqual([]);
    expect(cuts).toEqual([
      expect.objectContaining({
        action: "masked",
        messages: [1, 2],
        reason: expect.stringMatching(/made under openai/),
      }),
    ]);
  });

  it("keeps calls of the same provider type as they are, dropping provider fields of another model", () => {
    const input = deepFreeze(request(openaiHistory(), { model: "qwen3" }));
    const { request: view, cuts } = fitRequestView(
      input,
      target({
        provider: "ollama",
        model: "qwen3",
        providerType: "openai",
        providerTypes: { ollama: "openai", openai: "openai" },
      }),
    );
    const assistant = view.messages[1] as Extract<ViewMessage, { role: "assistant" }>;
    expect(assistant.toolCalls).toEqual([{ id: "call_1", name: "notes__add", argumentsJson: '{"text":"x"}' }]);
    expect(view.messages[2]).toEqual(input.messages[2]);
    expect(cuts).toEqual([]);
  });

  it("keeps provider fields when the target is the very provider and model that made them", () => {
    const input = deepFreeze(request(openaiHistory(), { model: "gpt-4.1" }));
    const { request: view, cuts } = fitRequestView(
      input,
      target({ provider: "openai", model: "gpt-4.1", providerType: "openai" }),
    );
    expect(view.messages).toEqual(input.messages);
    expect(cuts).toEqual([]);
  });

  it("compares an origin of unknown type by provider name", () => {
    const history: ViewMessage[] = openaiHistory().map((message) =>
      "origin" in message ? { ...message, origin: { provider: "local", model: "llama3.1" } } : message,
    );
    const same = fitRequestView(
      request(history),
      target({ provider: "local", model: "llama3.1", providerType: "openai" }),
    );
    expect(same.cuts).toEqual([]);
    const other = fitRequestView(
      request(history),
      target({ provider: "openai", model: "gpt-4.1", providerType: "openai" }),
    );
    expect(other.cuts.map((cut) => cut.action)).toEqual(["masked"]);
  });

  it("masks all tool history when the request offers no tools", () => {
    const { request: view, cuts } = fitRequestView(
      request(openaiHistory(), { tools: [] }),
      target({ provider: "openai", model: "gpt-4.1", providerType: "openai" }),
    );
    expect(view.messages.some((message) => message.role === "tool")).toBe(false);
    expect(cuts[0]?.reason).toMatch(/no tools/);
  });

  it("masks a call without its result and a result without its call", () => {
    const { request: view, cuts } = fitRequestView(
      request([
        { role: "user", text: "ana: go" },
        { role: "tool", toolCallId: "lost", toolName: "notes__add", text: "orphan" },
        {
          role: "assistant",
          text: "",
          toolCalls: [
            { id: "a", name: "notes__add", argumentsJson: '{"text":"a"}' },
            { id: "b", name: "notes__add", argumentsJson: '{"text":"b"}' },
          ],
        },
        { role: "tool", toolCallId: "a", toolName: "notes__add", text: "ok a" },
        { role: "user", text: "ana: and?" },
      ]),
      target(),
    );
    expect(view.messages[1]).toEqual({ role: "user", text: "[result of notes__add: orphan]" });
    expect(view.messages[2]).toMatchObject({
      role: "assistant",
      text: '[called tool notes__add with {"text":"b"}]',
      toolCalls: [{ id: "a" }],
    });
    expect(view.messages[3]).toEqual({ role: "tool", toolCallId: "a", toolName: "notes__add", text: "ok a" });
    expectPairsIntact(view.messages);
    expect(cuts.map((cut) => cut.reason)).toEqual(["a tool result without its call", "a tool call without its result"]);
  });
});

describe("fitRequestView truncation", () => {
  function longChat(turns: number): ViewMessage[] {
    const messages: ViewMessage[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      messages.push({ role: "user", text: `ana: question ${turn} ${"words ".repeat(60)}` });
      messages.push({
        role: "assistant",
        text: `checking ${turn}`,
        toolCalls: [{ id: `c${turn}`, name: "notes__add", argumentsJson: `{"text":"${turn}"}` }],
      });
      messages.push({
        role: "tool",
        toolCallId: `c${turn}`,
        toolName: "notes__add",
        text: `result ${turn} ${"data ".repeat(80)}`,
      });
      messages.push({ role: "assistant", text: `answer ${turn} ${"prose ".repeat(40)}`, toolCalls: [] });
    }
    messages.push({ role: "user", text: "ana: the current question" });
    return messages;
  }

  it("fits a history far over the budget, oldest first, recording the cut", () => {
    const input = deepFreeze(request(longChat(200)));
    const before = structuredClone(input);
    const budget = target({ budgetTokens: 6_000, reserveOutputTokens: 1_000 });
    expect(estimateRequestTokens(input)).toBeGreaterThan(40_000);

    const { request: view, cuts } = fitRequestView(input, budget);

    expect(estimateRequestTokens(view)).toBeLessThanOrEqual(budget.budgetTokens - budget.reserveOutputTokens);
    expect(view.system).toBe(input.system);
    expect(view.tools).toBe(input.tools);
    expect(view.messages.at(-1)).toEqual({ role: "user", text: "ana: the current question" });
    const dropped = cuts.find((cut) => cut.action === "dropped");
    expect(dropped?.messages[0]).toBe(0);
    expect(dropped?.reason).toMatch(/oldest/);
    expect(view.messages[0]).toEqual({
      role: "user",
      text: `[${dropped?.messages.length} earlier messages were left out to fit the model's context budget]`,
    });
    // What is kept is the newest part, unchanged.
    const keptCount = view.messages.length - 1;
    expect(view.messages.slice(1)).toEqual(input.messages.slice(-keptCount));
    expect(dropped?.messages.length).toBe(input.messages.length - keptCount);
    expectPairsIntact(view.messages);
    expect(input).toEqual(before);
  });

  it("keeps masked calls and their masked results together at the cut", () => {
    const foreign = longChat(30).map(
      (message): ViewMessage => (message.role === "user" ? message : { ...message, origin: openaiOrigin }),
    );
    for (let budgetTokens = 2_000; budgetTokens < 5_000; budgetTokens += 101) {
      const { request: view } = fitRequestView(request(foreign), target({ budgetTokens, reserveOutputTokens: 200 }));
      for (const [index, message] of view.messages.entries()) {
        if (message.role !== "user" || !message.text.startsWith("[result of")) continue;
        const owner = view.messages[index - 1];
        expect(owner?.role).toBe("assistant");
        expect(owner?.text).toContain("[called tool notes__add");
      }
    }
  });

  it("never separates a call from its result at the cut", () => {
    for (let budgetTokens = 1_400; budgetTokens < 4_000; budgetTokens += 37) {
      const { request: view } = fitRequestView(
        request(longChat(12)),
        target({ budgetTokens, reserveOutputTokens: 200 }),
      );
      expectPairsIntact(view.messages);
      expect(view.messages[1]?.role).not.toBe("tool");
    }
  });

  it("shortens over-long old tool results before dropping whole messages", () => {
    const hugeOutput = `BEGIN ${"x".repeat(60_000)} END`;
    const input = deepFreeze(
      request([
        { role: "user", text: "ana: dump the log" },
        { role: "assistant", text: "", toolCalls: [{ id: "d", name: "notes__add", argumentsJson: "{}" }] },
        { role: "tool", toolCallId: "d", toolName: "notes__add", text: hugeOutput },
        { role: "assistant", text: "It is long.", toolCalls: [] },
        { role: "user", text: "ana: summarise it" },
      ]),
    );
    const budget = target({ budgetTokens: 8_000, reserveOutputTokens: 1_000 });
    const { request: view, cuts } = fitRequestView(input, budget);
    expect(cuts.map((cut) => cut.action)).toEqual(["shortened"]);
    expect(cuts[0]?.messages).toEqual([2]);
    expect(view.messages).toHaveLength(5);
    const shortened = (view.messages[2] as { text: string }).text;
    expect(shortened.startsWith("BEGIN ")).toBe(true);
    expect(shortened.endsWith(" END")).toBe(true);
    expect(shortened).toMatch(/characters cut to fit the context budget/);
    expect(estimateRequestTokens(view)).toBeLessThanOrEqual(7_000);
  });

  it("shortens the current step when it alone is too big, and says when even that is not enough", () => {
    const input = request([
      { role: "user", text: `ana: read this ${"y".repeat(40_000)}` },
      { role: "assistant", text: "", toolCalls: [{ id: "r", name: "notes__add", argumentsJson: "{}" }] },
      { role: "tool", toolCallId: "r", toolName: "notes__add", text: "z".repeat(40_000) },
    ]);
    const fits = fitRequestView(input, target({ budgetTokens: 4_000, reserveOutputTokens: 500 }));
    expect(fits.cuts.map((cut) => cut.action)).toEqual(["shortened", "shortened"]);
    expect(fits.cuts[0]?.messages).toEqual([2]); // the tool result is cut first, then the user text
    expect(estimateRequestTokens(fits.request)).toBeLessThanOrEqual(3_500);
    expectPairsIntact(fits.request.messages);

    const impossible = fitRequestView(input, target({ budgetTokens: 300, reserveOutputTokens: 250 }));
    expect(impossible.cuts.at(-1)?.action).toBe("over-budget");
  });

  it("changes nothing when the view fits", () => {
    const input = deepFreeze(request(openaiHistory()));
    const { request: view, cuts } = fitRequestView(
      input,
      target({ provider: "openai", model: "gpt-4.1", providerType: "openai" }),
    );
    expect(cuts).toEqual([]);
    expect(view.messages).toEqual(input.messages);
  });

  it("keeps its invariants over many random histories and never changes its input", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const origins = [
      undefined,
      openaiOrigin,
      { provider: "anthropic", model: "claude-opus-4-6" },
      { provider: "google", model: "gemini-2.5-pro" },
    ];
    for (let round = 0; round < 60; round += 1) {
      const messages: ViewMessage[] = [];
      const length = 1 + Math.floor(random() * 40);
      for (let index = 0; index < length; index += 1) {
        const roll = random();
        const origin = origins[Math.floor(random() * origins.length)];
        if (roll < 0.4) messages.push({ role: "user", text: `u${index} ${"t".repeat(Math.floor(random() * 3_000))}` });
        else if (roll < 0.8) {
          const calls = Math.floor(random() * 3);
          messages.push({
            role: "assistant",
            text: random() < 0.5 ? "" : `a${index}`,
            toolCalls: Array.from({ length: calls }, (_, call) => ({
              id: `r${round}m${index}c${call}`,
              name: "notes__add",
              argumentsJson: "{}",
            })),
            ...(origin ? { origin } : {}),
          });
          for (let call = 0; call < calls; call += 1) {
            if (random() < 0.9) {
              messages.push({
                role: "tool",
                toolCallId: `r${round}m${index}c${call}`,
                toolName: "notes__add",
                text: "o".repeat(Math.floor(random() * 5_000)),
                ...(origin ? { origin } : {}),
              });
            }
          }
        } else messages.push({ role: "tool", toolCallId: `stray${index}`, toolName: "notes__add", text: "stray" });
      }
      const input = deepFreeze(request(messages));
      const snapshot = structuredClone(input);
      const budget = target({ budgetTokens: 1_000 + Math.floor(random() * 8_000), reserveOutputTokens: 500 });
      const { request: view, cuts } = fitRequestView(input, budget);
      expect(input).toEqual(snapshot);
      expectPairsIntact(view.messages);
      if (!cuts.some((cut) => cut.action === "over-budget")) {
        expect(estimateRequestTokens(view)).toBeLessThanOrEqual(budget.budgetTokens - budget.reserveOutputTokens);
      }
      const last = messages.at(-1);
      if (last?.role === "user")
        expect((view.messages.at(-1) as { text: string }).text.slice(0, 4)).toBe(last.text.slice(0, 4));
    }
  });
});
