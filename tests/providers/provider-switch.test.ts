/**
 * An agent switched from one provider to another mid-chat keeps working: the view built for
 * the new provider masks the old provider's tool history into text, the new provider's SDK
 * accepts it (its fake records what was sent), and the view input is never changed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fitRequestView } from "../../src/agents/view/fit-request-view.js";
import type { ModelRequest, ModelToolCall, ViewMessage } from "../../src/providers/model-provider.js";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { apiKey, collect, type ProviderCase, providerCases } from "./provider-harness.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Calls as the `from` provider made them, with its own ids and raw fields. */
function callsMadeBy(from: ProviderCase): ModelToolCall[] {
  switch (from.type) {
    case "openai":
      return [
        {
          id: "call_1",
          name: "notes__add",
          argumentsJson: '{"text":"x"}',
          providerFields: { openai: { extra_content: { k: 1 } } },
        },
        { id: "call_2", name: "shell_cmd", argumentsJson: '{"command":"ls"}' },
      ];
    case "anthropic":
      return [
        { id: "toolu_1", name: "notes__add", argumentsJson: '{"text":"x"}' },
        { id: "toolu_2", name: "shell_cmd", argumentsJson: '{"command":"ls"}' },
      ];
    case "google":
      return [
        {
          id: "gemini_call_1",
          name: "notes__add",
          argumentsJson: '{"text":"x"}',
          providerFields: { google: { thoughtSignature: "sig" } },
        },
        { id: "gemini_call_2", name: "shell_cmd", argumentsJson: '{"command":"ls"}' },
      ];
  }
}

/** The view the lead's builder makes of a chat where the agent worked under `from`. */
function historyUnder(from: ProviderCase): ModelRequest {
  const origin = { provider: from.type, model: from.model };
  const [note, shell] = callsMadeBy(from) as [ModelToolCall, ModelToolCall];
  const messages: ViewMessage[] = [
    { role: "user", text: "ana: @alice note x and list files" },
    { role: "assistant", text: "On it.", toolCalls: [note, shell], origin },
    { role: "tool", toolCallId: note.id, toolName: "notes__add", text: "note 1 added", origin },
    { role: "tool", toolCallId: shell.id, toolName: "shell_cmd", text: "a b c", origin },
    { role: "assistant", text: "Noted; three files.", toolCalls: [], origin },
    { role: "user", text: "ana: @alice now what was the note?" },
  ];
  return {
    model: "placeholder",
    system: "You are alice.",
    messages,
    tools: [
      {
        name: "notes__add",
        description: "Add a note.",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
      },
      {
        name: "shell_cmd",
        description: "Run a command.",
        inputSchema: { type: "object", properties: { command: { type: "string" } } },
      },
    ],
  };
}

const pairs = providerCases.flatMap((from) =>
  providerCases.map((to) => ({ from, to, label: `${from.type} → ${to.type}` })),
);

describe.each(pairs)("switching $label mid-chat", ({ from, to }) => {
  it("keeps working and leaves the view input untouched", async () => {
    const input = deepFreeze(historyUnder(from));
    const storedBytes = JSON.stringify(input);
    const { request: view, cuts } = fitRequestView(
      { ...input, model: to.model },
      { provider: to.type, model: to.model, providerType: to.type, budgetTokens: 100_000, reserveOutputTokens: 4_000 },
    );
    expect(JSON.stringify(input)).toBe(storedBytes);

    fake = await to.start({
      apiKey,
      steps: [{ type: "reply", text: ["The note was x."], usage: { inputTokens: 50, outputTokens: 5 } }],
    });
    const { response } = await collect(to.create(fake), view);
    expect(response.text).toBe("The note was x.");
    const sent = JSON.stringify(fake.requests[0]?.body);

    if (from.type === to.type) {
      expect(cuts).toEqual([]);
      // Same wire protocol and model: structured calls, ids and raw fields as they came
      // (Gemini's ids are ours and stay home; its thought signature goes back).
      if (to.type === "google") expect(sent).toContain('"functionCall"');
      if (to.type === "google") expect(sent).toContain('"thoughtSignature":"sig"');
      else expect(sent).toContain(callsMadeBy(from)[0]?.id);
      expect(sent).not.toContain("[called tool");
    } else {
      expect(cuts).toEqual([expect.objectContaining({ action: "masked", messages: [1, 2, 3] })]);
      expect(sent).toContain('[called tool notes__add with {\\"text\\":\\"x\\"}]');
      expect(sent).toContain("[result of shell_cmd: a b c]");
      // Nothing of the other provider's tool wire format or raw fields travels.
      for (const call of callsMadeBy(from)) expect(sent).not.toContain(call.id);
      expect(sent).not.toMatch(
        /"tool_use"|"tool_result"|"functionCall"|"functionResponse"|"tool_calls"|"sig"|extra_content/,
      );
    }
    expect(JSON.stringify(input)).toBe(storedBytes);
  });
});

describe("switching back and forth", () => {
  it("masks each provider's calls for the other and keeps its own structured", async () => {
    const openai = providerCases.find((one) => one.label === "openai") as ProviderCase;
    const anthropic = providerCases.find((one) => one.label === "anthropic") as ProviderCase;
    // Turn 1 under OpenAI (stored), turn 2 under Anthropic (stored), then a view for Anthropic.
    const early = historyUnder(openai);
    const anthropicOrigin = { provider: "anthropic", model: anthropic.model };
    const later: ViewMessage[] = [
      {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "toolu_9", name: "notes__add", argumentsJson: '{"text":"y"}' }],
        origin: anthropicOrigin,
      },
      { role: "tool", toolCallId: "toolu_9", toolName: "notes__add", text: "note 2 added", origin: anthropicOrigin },
      { role: "assistant", text: "The note was x; I added y.", toolCalls: [], origin: anthropicOrigin },
      { role: "user", text: "ana: @alice thanks" },
    ];
    const input = deepFreeze({ ...early, model: anthropic.model, messages: [...early.messages, ...later] });
    const storedBytes = JSON.stringify(input);
    const { request: view, cuts } = fitRequestView(input, {
      provider: "anthropic",
      model: anthropic.model,
      providerType: "anthropic",
      budgetTokens: 100_000,
      reserveOutputTokens: 4_000,
    });
    expect(cuts.map((cut) => cut.messages)).toEqual([[1, 2, 3]]);
    fake = await anthropic.start({ apiKey, steps: [{ type: "reply", text: ["You're welcome."] }] });
    await collect(anthropic.create(fake), view);
    const body = fake.requests[0]?.body as { messages: { role: string; content: { type: string; id?: string }[] }[] };
    const toolUses = body.messages.flatMap((message) => message.content.filter((block) => block.type === "tool_use"));
    expect(toolUses.map((block) => block.id)).toEqual(["toolu_9"]);
    expect(JSON.stringify(input)).toBe(storedBytes);
  });
});
