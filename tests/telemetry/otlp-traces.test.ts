import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, spawnRoundtable } from "../cli/run-roundtable.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { FakeOtlpCollector } from "../fakes/otlp-collector.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { waitUntil } from "../tools/wait-until.js";

const token = "7000:otel";
const person = { id: 4242, is_bot: false, first_name: "Ana" };

let directory: string;
let telegram: FakeTelegramApi;
let model: FakeModelServer;
let collector: FakeOtlpCollector;
let service: ChildProcess | undefined;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-otel-"));
  telegram = await FakeTelegramApi.start([{ token, username: "roundtable_bot" }]);
  telegram.addChat({ id: 4242, type: "private", first_name: "Ana" });
  model = await startOpenAIFake();
  collector = await FakeOtlpCollector.start();
  await writeFile(
    path.join(directory, "roundtable.yaml"),
    [
      "providers:",
      `  openai: { apiKey: sk-test, baseUrl: "${model.baseUrl}" }`,
      "agents:",
      "  - { name: alice, provider: openai, model: gpt-4.1, tools: [shell_cmd] }",
      "worlds:",
      "  - { name: main, agents: [alice], defaultAgent: alice }",
      "channels:",
      `  telegram: { token: "${token}", apiRoot: "${telegram.apiRoot}", chats: { "*": main } }`,
      "",
    ].join("\n"),
  );
});

afterEach(async () => {
  if (service && service.exitCode === null && service.signalCode === null) service.kill("SIGKILL");
  await Promise.all([telegram.close(), model.close(), collector.close()]);
  await rm(directory, { recursive: true, force: true });
});

/** Starts the real service, has Ana ask for a tool run, approves it, and waits for the answer. */
async function approvedToolTurn(extraEnv: Record<string, string>): Promise<{ metrics: string; stderr: string }> {
  model.script(
    { type: "reply", toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"true"}'] }] },
    { type: "reply", text: ["all ", "done"] },
  );
  // Port 0: the kernel picks a free port and the service logs it. A port picked here and
  // released for the service could be taken meanwhile by another test on a busy machine.
  const child = spawnRoundtable(["start"], {
    cwd: directory,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      DATABASE_URL: `file:${path.join(directory, "roundtable.db")}`,
      ...extraEnv,
    },
  });
  service = child;
  const finished = collect(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const listeningPort = () => /"port":(\d+)[^\n]*"msg":"HTTP server listening"/.exec(stderr)?.[1];
  await waitUntil("the service listens", () => listeningPort() !== undefined || child.exitCode !== null, 60_000);
  const port = listeningPort();
  if (port === undefined) throw new Error(`the service did not start:\n${stderr}`);
  telegram.userMessage(token, { chatId: 4242, from: person, text: "please run true" });
  const card = () =>
    telegram
      .messagesIn(4242)
      .find((message) => JSON.stringify(message.reply_markup ?? {}).includes('"callback_data":"ap:'));
  await waitUntil("the approval card is posted", () => card() !== undefined, 30_000);
  const markup = card()?.reply_markup as { inline_keyboard?: { callback_data: string }[][] } | undefined;
  const buttons = markup?.inline_keyboard?.flat() ?? [];
  const once = buttons.find((button) => button.callback_data.endsWith(":o"))?.callback_data ?? "";
  telegram.pressButton(token, { chatId: 4242, messageId: card()?.message_id ?? 0, from: person, data: once });
  await waitUntil(
    "the answer is posted",
    () => telegram.messagesIn(4242).some((message) => message.text.includes("all done")),
    30_000,
  );
  // The turn-ended span is made from the event, a moment after the answer is posted.
  await waitUntil("the turn is measured", async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return /roundtable_turn_seconds_count\{agent="alice"\} 1/.test(text);
  });
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  child.kill("SIGTERM");
  const run = await finished;
  expect(run.code).toBe(0);
  return { metrics, stderr: run.stderr };
}

// Each test starts the real service and waits on bounded conditions (up to 60 + 30 + 30 + 10 s on
// a busy machine): the test's own limit must not be the shorter one.
describe("OpenTelemetry", { timeout: 180_000 }, () => {
  it("exports a turn's spans over OTLP/HTTP in one trace, with GenAI attribute names", async () => {
    const { metrics } = await approvedToolTurn({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    const spans = collector.spans;
    const turn = spans.find((span) => span.name === "invoke_agent alice");
    expect(turn).toBeDefined();
    expect(turn?.parentSpanId).toBeUndefined();
    expect(turn?.serviceName).toBe("roundtable");
    expect(turn?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "alice",
      "gen_ai.conversation.id": "telegram::4242:",
      "roundtable.turn.end_reason": "answered",
    });
    const modelCalls = spans.filter((span) => span.name === "chat gpt-4.1");
    expect(modelCalls).toHaveLength(2);
    expect(modelCalls[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4.1",
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    const tool = spans.find((span) => span.name === "execute_tool shell_cmd");
    expect(tool?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "shell_cmd",
    });
    const wait = spans.find((span) => span.name === "approval wait");
    expect(wait?.attributes).toMatchObject({
      "gen_ai.tool.name": "shell_cmd",
      "roundtable.approval.state": "approved",
    });
    // Every step's span hangs under the turn's span, in the turn's trace.
    for (const child of [...modelCalls, tool, wait]) {
      expect(child?.traceId).toBe(turn?.traceId);
      expect(child?.parentSpanId).toBe(turn?.spanId);
    }
    expect(metrics).toMatch(/roundtable_model_call_seconds_count\{model="gpt-4.1",provider="openai"\} 2/);
    expect(metrics).toMatch(/roundtable_tool_call_seconds_count\{tool="shell_cmd"\} 1/);
    expect(metrics).toMatch(/roundtable_approval_wait_seconds_count\{state="approved"\} 1/);
  });

  it("sends nothing when OTEL_EXPORTER_OTLP_ENDPOINT is not set, and still fills the histograms", async () => {
    const { metrics } = await approvedToolTurn({});
    expect(collector.requests).toBe(0);
    expect(metrics).toMatch(/roundtable_turn_seconds_bucket\{agent="alice",le="\+Inf"\} 1/);
  });
});
