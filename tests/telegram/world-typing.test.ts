/**
 * Status while agents work, on Telegram: `sendChatAction` `typing` from the moment a turn
 * calls the model until its first token, renewed while it lasts, through the agent's own bot
 * when it has one, and during a tool run; it stops when the work does. A refused typing call
 * never fails the turn. (No timing is asserted: renewals are counted, and a stop is checked
 * after many renewal periods have gone by.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { bobToken, leadingMention, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const renewMs = 10;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function held() {
  let release: () => void = () => undefined;
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { hold, release };
}

describe("typing on Telegram while an agent works", () => {
  it("is sent and renewed by the agent's own bot until the answer, then stops", async () => {
    const gate = held();
    const bob = new ScriptedProvider([{ text: "Ready.", hold: gate.hold }]);
    t = await worldOnTelegram({
      agents: [{ name: "bob", provider: bob }],
      agentConfig: { bob: { telegram: { token: bobToken } } },
      extraBots: [{ token: bobToken, username: "bob_rt_bot", firstName: "Bob", canReadAllGroupMessages: true }],
      adapter: { agentBots: [{ agent: "bob", token: bobToken }], typingRenewMs: renewMs },
    });
    const world = t;
    world.fake.userMessage(mainToken, {
      chatId: groupId,
      from: ana,
      text: "@bob ready?",
      entities: leadingMention("@bob"),
    });
    // The model call is held: typing is renewed meanwhile.
    await world.world.waitFor(() => world.fake.callsTo("sendChatAction").length >= 3);
    const typing = world.fake.callsTo("sendChatAction");
    expect(typing.every((call) => call.token === bobToken && call.ok)).toBe(true);
    expect(typing[0]?.params).toMatchObject({ chat_id: groupId, action: "typing" });
    gate.release();
    await t.world.idle();
    expect(t.botTexts()).toEqual(["Ready."]);
    // A call sent just before the stop may still be on its way: let it land first.
    await pause(renewMs * 5);
    const after = t.fake.callsTo("sendChatAction").length;
    await pause(renewMs * 20);
    expect(t.fake.callsTo("sendChatAction").length).toBe(after);
  });

  it("shows typing while a tool runs, and a refused typing call does not stop the turn", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "Slept." }
        : { toolCalls: [{ name: "shell_cmd", args: { command: "sleep", args: ["0.3"] } }] },
    );
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      adapter: { typingRenewMs: renewMs },
      beforeStart: (fake) =>
        fake.failNext("sendChatAction", { error_code: 400, description: "Bad Request: not enough rights" }),
    });
    await t.say(ana, "@alice sleep a bit");
    expect(t.botTexts()).toEqual(["alice: Slept."]);
    // Several renewals happened during the 0.3 s sleep, each through the main bot.
    expect(t.fake.callsTo("sendChatAction").filter((call) => call.ok).length).toBeGreaterThanOrEqual(2);
    // A call sent just before the stop may still be on its way: let it land first.
    await pause(renewMs * 5);
    const after = t.fake.callsTo("sendChatAction").length;
    await pause(renewMs * 20);
    expect(t.fake.callsTo("sendChatAction").length).toBe(after);
  });
});
