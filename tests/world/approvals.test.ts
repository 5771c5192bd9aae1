import { storeHistory } from "../../src/app/web-history.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const echoCall = (word: string) => ({ name: "shell_cmd", args: { command: "echo", args: [word] } });

/** A model that calls echo once, then answers with what the tool said. */
function echoOnce(word = "hello") {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Let me check.", toolCalls: [echoCall(word)] };
  });
}

describe("approvals in the tool loop", () => {
  it("approve once: card, click by the person who asked, card updated, tool ran, answer posted", async () => {
    const alice = echoOnce();
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice run echo", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    expect(card?.card).toMatchObject({
      agent: "alice",
      tool: "shell_cmd",
      argumentsJson: '{"command":"echo","args":["hello"]}',
    });
    expect(alice.requests).toHaveLength(1);

    const result = await harness.click(card?.card.approvalId ?? "", "once", { user: "ana" });
    expect(result.status).toBe("decided");
    await harness.idle();
    const [update] = harness.channel.updates();
    expect(update?.outcome).toMatchObject({ state: "approved", choice: "once", decidedBy: { id: "ana" } });
    expect(update?.ids).toEqual([card?.id]);
    const texts = harness.channel.messages().map((message) => message.text);
    expect(texts).toEqual(["Let me check.", expect.stringContaining("tool said: exit code: 0")]);
    expect(texts[1]).toContain("hello");
    // A second press changes nothing.
    const again = await harness.click(card?.card.approvalId ?? "", "deny", { user: "ana" });
    expect(again).toMatchObject({ status: "already-decided", text: expect.stringContaining("ana") });
  });

  it("approve for session: a second identical call runs without a card", async () => {
    let calls = 0;
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "done" };
      calls += 1;
      return { toolCalls: [echoCall("same")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice first", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    await harness.click(card?.card.approvalId ?? "", "session", { user: "ana" });
    await harness.idle();
    await harness.say("@alice second", { user: "ana" });
    await harness.idle();
    expect(calls).toBe(2);
    expect(harness.channel.cards()).toHaveLength(1);
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["done", "done"]);
  });

  it("deny: the model sees the denial and answers", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `ok, I will not (${last.text})` };
      return { toolCalls: [echoCall("x")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice do it", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    await harness.click(card?.card.approvalId ?? "", "deny", { user: "ana", reason: "not now" });
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual([
      "ok, I will not (denied by ana: not now)",
    ]);
    expect(harness.channel.updates()[0]?.outcome.state).toBe("denied");
  });

  it("afterDenial: wait ends the turn without another model call", async () => {
    const alice = new ScriptedProvider([{ toolCalls: [echoCall("x")] }]);
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { afterDenial: "wait" },
    });
    await harness.say("@alice do it", { user: "ana" });
    await harness.idle();
    await harness.click(harness.channel.cards()[0]?.card.approvalId ?? "", "deny", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(1);
    const turns = await harness.store.listTurns({});
    expect(turns[0]).toMatchObject({ state: "ended", endReason: "denied" });
  });

  it("a click by someone not allowed is refused and changes nothing; a configured approver may decide", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { telegram: ["boss", "role:ops"] } },
      channelsConfig: { telegram: { chats: { "chat-1": "main" } } },
    });
    await harness.say("@alice run", { user: "ana" });
    await harness.idle();
    const id = harness.channel.cards()[0]?.card.approvalId ?? "";
    const refused = await harness.click(id, "once", { user: "mallory" });
    expect(refused.status).toBe("not-allowed");
    await harness.idle();
    expect(harness.channel.updates()).toHaveLength(0);
    expect((await harness.store.getApproval(id))?.state).toBe("pending");
    const byRole = await harness.click(id, "once", { user: "olga", roles: ["Ops"] });
    expect(byRole.status).toBe("decided");
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toContain("tool said");
  });

  it("a forged id and another chat's approval id are refused and logged", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: echoOnce(), tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice run", { user: "ana", channel: "chat-a" });
    await harness.idle();
    const id = harness.channel.cards()[0]?.card.approvalId ?? "";
    // Another id of the same shape: the last two hex digits changed (an id that happens to end in
    // "00" must not be "forged" into itself, one run in 256).
    const forgedId = `${id.slice(0, -2)}${id.endsWith("00") ? "11" : "00"}`;
    expect(forgedId).not.toBe(id);
    const forged = await harness.click(forgedId, "once", { user: "ana", channel: "chat-a" });
    expect(forged.status).toBe("unknown");
    const foreign = await harness.click(id, "once", { user: "ana", channel: "chat-b" });
    expect(foreign.status).toBe("unknown");
    expect((await harness.store.getApproval(id))?.state).toBe("pending");
    expect(harness.logs()).toContain("foreign or forged approval id");
  });

  it("three parallel calls: three cards at once, decided out of order, one next model call with all results", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") {
        const results = request.messages.filter((message) => message.role === "tool").map((message) => message.text);
        return { text: `results: ${results.length}` };
      }
      return { toolCalls: [echoCall("one"), echoCall("two"), echoCall("three")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice three things", { user: "ana" });
    await harness.idle();
    const cards = harness.channel.cards();
    expect(cards.map((card) => JSON.parse(card.card.argumentsJson).args[0])).toEqual(["one", "two", "three"]);
    await harness.click(cards[2]?.card.approvalId ?? "", "once", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(1);
    await harness.click(cards[0]?.card.approvalId ?? "", "deny", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(1);
    await harness.click(cards[1]?.card.approvalId ?? "", "once", { user: "ana" });
    await harness.idle();
    expect(alice.requests).toHaveLength(2);
    const toolTexts = alice.requests[1]?.messages
      .filter((message) => message.role === "tool")
      .map((message) => message.text);
    expect(toolTexts?.[0]).toMatch(/^denied by ana/);
    expect(toolTexts?.[1]).toContain("two");
    expect(toolTexts?.[2]).toContain("three");
    expect(harness.channel.messages().at(-1)?.text).toBe("results: 3");
  });

  it("an approval not decided in time expires into a synthetic result", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `gave up: ${last.text}` };
      return { toolCalls: [echoCall("late")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvalTimeout: 1 },
    });
    await harness.say("@alice run", { user: "ana" });
    await harness.waitFor(
      () => harness?.channel.messages().some((message) => message.text.startsWith("gave up")) ?? false,
    );
    expect(harness.channel.messages().at(-1)?.text).toMatch(/^gave up: expired: no decision/);
    expect(harness.channel.updates()[0]?.outcome.state).toBe("expired");
    const late = await harness.click(harness.channel.cards()[0]?.card.approvalId ?? "", "once", { user: "ana" });
    expect(late).toEqual({ status: "expired", text: "This approval has expired; nothing was decided." });
  });

  it("a new message to a parked agent supersedes its pending approvals", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "user" && last.text.includes("never mind")) return { text: "Understood." };
      return { toolCalls: [echoCall("x")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice run", { user: "ana" });
    await harness.idle();
    await harness.say("@alice never mind", { user: "ana" });
    await harness.idle();
    expect(harness.channel.updates()[0]?.outcome.state).toBe("skipped");
    expect(harness.channel.messages().at(-1)?.text).toBe("Understood.");
    // The superseded call is in the history with its synthetic result.
    const view = alice.requests[1]?.messages ?? [];
    expect(view.some((message) => message.role === "tool" && message.text.startsWith("skipped:"))).toBe(true);
    // The card says why, on every channel: the outcome's note, and the web history read back from the store.
    expect(harness.channel.updates()[0]?.outcome.note).toBe("ana wrote to alice again");
    const history = await storeHistory(harness.store, new Map()).history(chatKey(harness.chat()));
    expect(history.find((item) => item.kind === "card")).toMatchObject({
      card: { state: "skipped", note: "ana wrote to alice again" },
    });
  });

  it("arguments that are not valid JSON or miss required fields get an immediate invalid result, no card", async () => {
    const alice = new ScriptedProvider((request) => {
      const tools = request.messages.filter((message) => message.role === "tool");
      if (tools.length > 0) return { text: tools.map((message) => message.text).join(" | ") };
      return {
        toolCalls: [
          { name: "shell_cmd", args: null, rawArguments: "{not json" },
          { name: "shell_cmd", args: { args: ["x"] } },
        ],
      };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice go", { user: "ana" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(0);
    const [answer] = harness.channel.messages();
    expect(answer?.text).toMatch(/^invalid: .+ \| invalid: .*command/);
  });
});

describe("chat reset", () => {
  it("/reset ends session approvals: the same call asks again", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "done" };
      return { toolCalls: [echoCall("same")] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice first", { user: "ana" });
    await harness.idle();
    await harness.click(harness.channel.cards()[0]?.card.approvalId ?? "", "session", { user: "ana" });
    await harness.idle();
    const reset = await harness.say("/reset", { user: "ana" });
    expect(reset).toEqual({ status: "ignored", reason: "chat reset" });
    await harness.say("@alice again", { user: "ana" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(2);
  });
});
