import { afterEach, describe, expect, it } from "vitest";
import { buildParts } from "../../src/app/build-parts.js";
import { configSchema } from "../../src/config/schema.js";
import { createLogger } from "../../src/log/logger.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { writeHookModule } from "../hooks/hook-modules.js";
import { ana } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Runs `echo hello` once, then answers with what the tool said. */
function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

async function callsAndResults(t: WorldTelegram) {
  const calls = await t.world.store.listToolCalls({ chatKey: groupKey });
  const results = await t.world.store.listToolResults(calls.map((call) => call.id));
  return { calls, results };
}

function cards(t: WorldTelegram) {
  return t.botMessages().filter((message) => message.reply_markup !== undefined);
}

const world = { approvers: { telegram: [String(boss.id)] } };

describe("policy hooks on tool calls, through Telegram", () => {
  it("respond denies every call: nothing runs, each call has its one result, the turn ends with the message", async () => {
    const module = writeHookModule(`
      export function onEvent(event, respond) {
        if (event.type === "tool_call") respond({ text: "not outside office hours" });
      }`);
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world,
      hooks: { module },
    });
    await t.say(ana, "@alice run echo");
    const { calls, results } = await callsAndResults(t);
    expect(calls).toHaveLength(1);
    expect(results.map((result) => [result.kind, result.content])).toEqual([
      ["denied", "denied: not outside office hours"],
    ]);
    expect(alice.requests).toHaveLength(1);
    expect(cards(t)).toHaveLength(0);
    expect(t.botTexts()).toEqual(["alice: Let me check.", "alice: not outside office hours"]);
    const [turn] = await t.world.store.listTurns({ chatKey: groupKey });
    expect(turn?.state).toBe("ended");
    expect(turn?.endReason).toBe("answered");
  });

  it("approval never runs the call at once; approval required asks even where the config says never", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type === "tool_call")
          return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "never" })) };
      }`);
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world,
      hooks: { module },
    });
    await t.say(ana, "@alice run echo");
    expect(cards(t)).toHaveLength(0);
    const { results } = await callsAndResults(t);
    expect(results.map((result) => result.kind)).toEqual(["ok"]);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: .*hello/);
    await t.close();

    const strict = writeHookModule(`
      export function onEvent(event) {
        if (event.type === "tool_call")
          return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "required" })) };
      }`);
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      world,
      tools: { approval: { shell_cmd: "never" } },
      hooks: { module: strict },
    });
    await t.say(ana, "@alice run echo");
    expect(cards(t)).toHaveLength(1);
    expect(cards(t)[0]?.text).toContain("required by policy");
  });

  it("changed arguments are what the card shows, saying so, and what runs", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type !== "tool_call") return;
        return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, arguments: { command: "echo", args: ["changed"] } })) };
      }`);
    const alice = echoOnce();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world,
      hooks: { module },
    });
    await t.say(ana, "@alice run echo");
    const [card] = cards(t);
    expect(card?.text).toContain('"changed"');
    expect(card?.text).not.toContain('"hello"');
    expect(card?.text).toContain("changed by policy");
    const markup = card?.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] } | undefined;
    const buttons = markup?.inline_keyboard.flat() ?? [];
    const once = buttons.find((button) => /Approve once/.test(button.text))?.callback_data ?? "";
    await t.press(boss, card?.message_id ?? 0, once);
    expect(t.botTexts().at(-1)).toMatch(/^alice: tool said: .*changed/);
    const outcome = await t.world.store.getHookOutcome(
      `tool_call:${(await t.world.store.listTurns({ chatKey: groupKey }))[0]?.id}:1`,
    );
    expect(outcome?.event.type === "tool_call" && outcome.event.toolCalls[0]?.arguments).toEqual({
      command: "echo",
      args: ["hello"],
    });
  });

  it("a configured deny rule beats a hook's approval never", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type === "tool_call")
          return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "never" })) };
      }`);
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      world,
      tools: { rules: [{ tool: "shell_cmd", match: { command: "^echo$" }, action: "deny" }] },
      hooks: { module },
    });
    await t.say(ana, "@alice run echo");
    const { results } = await callsAndResults(t);
    expect(results.map((result) => result.kind)).toEqual(["blocked"]);
    expect(results[0]?.content).toMatch(/blocked by rule/);
    expect(cards(t)).toHaveLength(0);
  });

  it("a hook that throws or times out fails closed: every call blocked, one error line naming the module", async () => {
    const throwing = writeHookModule(
      `export function onEvent(event) { if (event.type === "tool_call") throw new Error("rules file missing"); }`,
    );
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      world,
      tools: { approval: { shell_cmd: "never" } },
      hooks: { module: throwing },
    });
    await t.say(ana, "@alice run echo");
    let { results } = await callsAndResults(t);
    expect(results.map((result) => [result.kind, result.content])).toEqual([
      ["blocked", "blocked: policy hook failed"],
    ]);
    const errors = t.world
      .logs()
      .split("\n")
      .filter((line) => line.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(throwing);
    expect(errors[0]).toContain("rules file missing");
    expect(t.botTexts().join("\n")).not.toContain("rules file missing");
    await t.close();

    const slow = writeHookModule(
      `export function onEvent(event) { if (event.type === "tool_call") return new Promise(() => {}); }`,
    );
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      world,
      tools: { approval: { shell_cmd: "never" } },
      hooks: { module: slow, timeout: "100ms" },
    });
    await t.say(ana, "@alice run echo");
    ({ results } = await callsAndResults(t));
    expect(results.map((result) => [result.kind, result.content])).toEqual([
      ["blocked", "blocked: policy hook failed"],
    ]);
    expect(t.world.logs()).toContain("timed out after 100 ms");
  });

  it("a .ts module is loaded as it is, typed with roundtable/hooks", async () => {
    const module = writeHookModule(
      `import type { OnEvent, RoundtableEvent } from "roundtable/hooks";
      const label: string = "policy";
      export const onEvent: OnEvent = (event: RoundtableEvent, respond) => {
        if (event.type === "tool_call") respond({ text: \`denied by \${label}\` });
      };`,
      "policy.ts",
    );
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      world,
      hooks: { module },
    });
    await t.say(ana, "@alice run echo");
    const { results } = await callsAndResults(t);
    expect(results.map((result) => result.content)).toEqual(["denied: denied by policy"]);
  });

  it("ten quick messages reach the hook one at a time, in order", async () => {
    const module = writeHookModule(`
      const seen = [];
      let busy = false;
      export function onEvent(event) {
        if (event.type !== "message" || event.createdBy !== "user") return;
        if (busy) throw new Error("two at once");
        busy = true;
        seen.push(event.message.text);
        globalThis.__hookOrder = seen;
        return new Promise((resolve) => setTimeout(() => { busy = false; resolve(undefined); }, 5));
      }`);
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: new ScriptedProvider(() => ({ text: "ok" })) }],
      hooks: { module },
    });
    const updates = [];
    for (let index = 1; index <= 10; index += 1)
      updates.push(
        t.fake.userMessage("1000:main-token", {
          chatId: -1001234,
          from: ana,
          text: `@alice message ${index}`,
          entities: [{ type: "mention", offset: 0, length: 6 }],
        }).update,
      );
    for (const update of updates) await t.settle(update);
    await t.world.idle();
    const order = (globalThis as { __hookOrder?: string[] }).__hookOrder;
    expect(order).toEqual(Array.from({ length: 10 }, (_, index) => `@alice message ${index + 1}`));
    expect(t.world.logs()).not.toContain("two at once");
  });
});

describe("a policy module that does not load", () => {
  it("is a config error naming the file and the cause, in one line", async () => {
    const broken = writeHookModule("export function onEvent( {", "broken.mjs");
    const config = configSchema.parse({ hooks: { module: broken } });
    const logger = createLogger({ level: "silent" });
    await expect(buildParts(config, logger)).rejects.toThrow(
      new RegExp(`^hooks module ${broken} could not be loaded: .+$`),
    );
    const none = writeHookModule("export const other = 1;", "none.mjs");
    await expect(buildParts(configSchema.parse({ hooks: { module: none } }), logger)).rejects.toThrow(
      "it exports no onEvent function",
    );
    await expect(buildParts(configSchema.parse({ hooks: { module: "./no-such-policy.ts" } }), logger)).rejects.toThrow(
      /hooks module \.\/no-such-policy\.ts could not be loaded: /,
    );
  });
});
