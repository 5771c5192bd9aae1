import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { writeHookModule } from "../hooks/hook-modules.js";
import { ana } from "./helpers.js";
import { groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function answering(text = "ok") {
  return new ScriptedProvider(() => ({ text }));
}

function lastUserText(provider: ScriptedProvider): string {
  const request = provider.requests.at(-1);
  const user = request?.messages.filter((message) => message.role === "user").at(-1);
  return user && "text" in user ? String(user.text) : "";
}

describe("policy hooks on messages, through Telegram", () => {
  it("a changed text is what the model sees; the stored payload is kept and the change recorded", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type !== "message" || event.createdBy !== "user") return;
        return { ...event, message: { ...event.message, text: event.message.text.replace(/[\\w.]+@[\\w.]+/g, "[email]") } };
      }`);
    const alice = answering("noted");
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], hooks: { module } });
    await t.say(ana, "@alice write to jo@example.com please");
    expect(alice.requests).toHaveLength(1);
    expect(lastUserText(alice)).toContain("[email]");
    expect(JSON.stringify(alice.requests[0])).not.toContain("jo@example.com");
    const [stored] = await t.world.store.listMessages(groupKey, { latest: 10 });
    expect(stored?.text).toBe("@alice write to [email] please");
    const outcome = await t.world.store.getHookOutcome(`message:${stored?.id}`);
    expect(outcome?.outcome).toBe("replaced");
    expect(outcome?.event.type === "message" && outcome.event.message.text).toBe(
      "@alice write to jo@example.com please",
    );
    expect(t.botTexts()).toEqual(["alice: noted"]);
  });

  it("respond answers without a model call, posted as the world's default agent", async () => {
    const module = writeHookModule(`
      export default { onEvent(event, respond) {
        if (event.type === "message" && /opening hours/i.test(event.message.text)) respond({ text: "We are open 9-17." });
      } };`);
    const alice = answering();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      hooks: { module },
    });
    await t.say(ana, "what are your opening hours?");
    expect(alice.requests).toHaveLength(0);
    expect(t.botTexts()).toEqual(["alice: We are open 9-17."]);
  });

  it("a readdress sends the message to another agent", async () => {
    const module = writeHookModule(`
      export function onEvent(event) {
        if (event.type === "message" && event.createdBy === "user" && /deploy/.test(event.message.text))
          return { ...event, message: { ...event.message, addressed: ["bob"] } };
      }`);
    const alice = answering("alice here");
    const bob = answering("bob here");
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      hooks: { module },
    });
    await t.say(ana, "@alice please deploy");
    expect(alice.requests).toHaveLength(0);
    expect(bob.requests).toHaveLength(1);
    expect(t.botTexts()).toEqual(["bob: bob here"]);
  });

  it("a programmatic message addressing another agent is routed to it and counted against turnLimit", async () => {
    const module = writeHookModule(`
      export function onEvent(event, respond) {
        if (event.type === "message" && event.createdBy === "user") respond({ text: "@bob please take this", sender: "alice" });
      }`);
    const alice = answering("alice here");
    const bob = answering("bob on it");
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 2 },
      hooks: { module },
    });
    await t.say(ana, "@alice hello");
    // The programmatic message is alice's turn 1, bob's answer turn 2: bob's answer back to alice stops there.
    expect(alice.requests).toHaveLength(0);
    expect(bob.requests).toHaveLength(1);
    expect(t.botTexts()[0]).toBe("alice: @bob please take this");
    expect(t.botTexts()[1]).toMatch(/^bob: .*bob on it/);
    expect(t.botTexts()[2]).toMatch(/taken 2 turns without a human message/);
    expect((await t.world.store.getChat(groupKey))?.agentTurnsSinceHuman).toBe(2);
  });

  it("a hook that throws or times out fails open for messages, with one error line naming the module", async () => {
    const throwing = writeHookModule(
      `export function onEvent(event) { if (event.createdBy === "user") throw new Error("policy broke"); }`,
    );
    const alice = answering("still here");
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], hooks: { module: throwing } });
    await t.say(ana, "@alice hi");
    expect(alice.requests).toHaveLength(1);
    const errors = t.world
      .logs()
      .split("\n")
      .filter((line) => line.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(throwing);
    expect(errors[0]).toContain("policy broke");
    await t.close();

    const slow = writeHookModule(`export function onEvent() { return new Promise(() => {}); }`);
    const bob = answering("after the wait");
    t = await worldOnTelegram({ agents: [{ name: "bob", provider: bob }], hooks: { module: slow, timeout: "50ms" } });
    await t.say(ana, "@bob hi");
    expect(bob.requests).toHaveLength(1);
    expect(t.world.logs()).toContain("timed out");
  });
});
