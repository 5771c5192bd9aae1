import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { writeHookModule } from "../hooks/hook-modules.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

async function results(t: WorldDiscord) {
  const calls = await t.world.store.listToolCalls({ chatKey: t.chatKeyOf() });
  return (await t.world.store.listToolResults(calls.map((call) => call.id))).map((result) => result.content);
}

const cards = (t: WorldDiscord) => t.posts().filter((message) => message.components.length > 0);

describe("policy hooks through Discord", () => {
  it("a changed text reaches the model; respond answers with no model request; a readdress goes to another agent", async () => {
    const module = writeHookModule(`
      export function onEvent(event, respond) {
        if (event.type !== "message" || event.createdBy !== "user") return;
        if (/faq/.test(event.message.text)) { respond({ text: "See the FAQ page." }); return; }
        if (/deploy/.test(event.message.text)) return { ...event, message: { ...event.message, addressed: ["bob"] } };
        return { ...event, message: { ...event.message, text: event.message.text.replace(/\\d{4}-\\d{4}/g, "[card]") } };
      }`);
    const alice = new ScriptedProvider(() => ({ text: "alice here" }));
    const bob = new ScriptedProvider(() => ({ text: "bob here" }));
    t = await worldOnDiscord({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { defaultAgent: "alice" },
      hooks: { module },
    });
    await t.say(t.ana, "my card is 1234-5678");
    expect(alice.requests).toHaveLength(1);
    expect(JSON.stringify(alice.requests[0])).not.toContain("1234-5678");
    expect(JSON.stringify(alice.requests[0])).toContain("[card]");
    await t.say(t.ana, "where is the faq?");
    expect(alice.requests).toHaveLength(1);
    expect(t.posts().at(-1)?.content).toContain("See the FAQ page.");
    await t.say(t.ana, "@alice deploy now");
    expect(alice.requests).toHaveLength(1);
    expect(bob.requests).toHaveLength(1);
  });

  it("a programmatic message addressing another agent starts its turn", async () => {
    const module = writeHookModule(`
      export function onEvent(event, respond) {
        if (event.type === "message" && event.createdBy === "user") respond({ text: "@bob over to you", sender: "alice" });
      }`);
    const alice = new ScriptedProvider(() => ({ text: "alice here" }));
    const bob = new ScriptedProvider(() => ({ text: "bob here" }));
    t = await worldOnDiscord({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 2 },
      hooks: { module },
    });
    await t.say(t.ana, "@alice hello");
    expect(alice.requests).toHaveLength(0);
    expect(bob.requests).toHaveLength(1);
    expect(t.posts()[0]?.content).toContain("over to you");
  });

  it("respond denies tool calls (closure holds); approval never runs at once; changed arguments show on the card", async () => {
    const module = writeHookModule(`
      export function onEvent(event, respond) {
        if (event.type !== "tool_call") return;
        if (event.world === "main" && globalThis.__mode === "deny") { respond({ text: "not today" }); return; }
        if (globalThis.__mode === "never") return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "never" })) };
        return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, arguments: { command: "echo", args: ["safer"] } })) };
      }`);
    const mode = globalThis as { __mode?: string };
    mode.__mode = "deny";
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      hooks: { module },
    });
    await t.say(t.ana, "@alice run echo");
    expect(await results(t)).toEqual(["denied: not today"]);
    expect(cards(t)).toHaveLength(0);
    await t.close();

    mode.__mode = "never";
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      hooks: { module },
    });
    await t.say(t.ana, "@alice run echo");
    expect(cards(t)).toHaveLength(0);
    expect((await results(t))[0]).toContain("hello");
    await t.close();

    mode.__mode = "change";
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      hooks: { module },
    });
    await t.say(t.ana, "@alice run echo");
    const [card] = cards(t);
    expect(card?.content).toContain('"safer"');
    expect(card?.content).toContain("changed by policy");
    delete mode.__mode;
  });

  it("a deny rule beats the hook; a throwing hook blocks tool calls and lets messages through", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type === "tool_call") {
          if (globalThis.__throw) throw new Error("policy store down");
          return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "never" })) };
        }
      }`);
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      tools: { rules: [{ tool: "shell_cmd", match: { command: "^echo$" }, action: "deny" }] },
      hooks: { module },
    });
    await t.say(t.ana, "@alice run echo");
    expect((await results(t))[0]).toMatch(/^blocked: blocked by rule/);
    await t.close();

    (globalThis as { __throw?: boolean }).__throw = true;
    const alice = echoOnce();
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      hooks: { module },
    });
    await t.say(t.ana, "@alice run echo");
    expect(alice.requests.length).toBeGreaterThan(0);
    expect(await results(t)).toEqual(["blocked: policy hook failed"]);
    expect(t.world.logs()).toContain("policy store down");
    delete (globalThis as { __throw?: boolean }).__throw;
  });
});
