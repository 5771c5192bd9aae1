/**
 * Status while agents work, on Discord: the typing endpoint from the moment a turn calls the
 * model until its first token, renewed while it lasts, as the agent's own bot when it has one,
 * and during a tool run; it stops when the work does. (No timing is asserted: renewals are
 * counted, and a stop is checked after many renewal periods have gone by.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { aliceToken, mainToken } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const renewMs = 10;
const typingPath = /^\/api\/v10\/channels\/\d+\/typing$|^\/channels\/\d+\/typing$/;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("typing on Discord while an agent works", () => {
  it("is triggered and renewed by the agent's own bot in the chat's channel until the answer, then stops", async () => {
    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const alice = new ScriptedProvider([{ text: "Ready.", hold }]);
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice }],
      identities: [{ name: "alice", token: aliceToken }],
      extraBots: [{ token: aliceToken, username: "AliceBot" }],
      world: { defaultAgent: "alice" },
      adapter: { typingRenewMs: renewMs },
    });
    const world = t;
    world.fake.userMessage({ channelId: world.general.id, author: world.ana, content: "ready?" });
    await world.world.waitFor(() => world.fake.callsTo("POST", typingPath).length >= 3);
    const typing = world.fake.callsTo("POST", typingPath);
    expect(typing.every((call) => call.token === aliceToken && call.status === 204)).toBe(true);
    expect(typing[0]?.path).toContain(`/channels/${world.general.id}/typing`);
    release();
    await world.world.waitFor(() => world.posts().some((post) => post.content === "Ready."));
    await world.world.idle();
    // A call sent just before the stop may still be on its way: let it land first.
    await pause(renewMs * 5);
    const after = world.fake.callsTo("POST", typingPath).length;
    await pause(renewMs * 20);
    expect(world.fake.callsTo("POST", typingPath).length).toBe(after);
  });

  it("is shown by the bot while a tool runs (an agent posting through the webhook cannot type)", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "Slept." }
        : { toolCalls: [{ name: "shell_cmd", args: { command: "sleep", args: ["0.3"] } }] },
    );
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      world: { defaultAgent: "alice" },
      adapter: { typingRenewMs: renewMs },
    });
    await t.say(t.ana, "sleep a bit");
    expect(t.posts().map((post) => post.content)).toEqual(["Slept."]);
    const typing = t.fake.callsTo("POST", typingPath);
    expect(typing.length).toBeGreaterThanOrEqual(2);
    expect(typing.every((call) => call.token === mainToken)).toBe(true);
    // A call sent just before the stop may still be on its way: let it land first.
    await pause(renewMs * 5);
    const after = t.fake.callsTo("POST", typingPath).length;
    await pause(renewMs * 20);
    expect(t.fake.callsTo("POST", typingPath).length).toBe(after);
  });
});
