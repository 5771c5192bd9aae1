import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "../world/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const chat = "console:main:ana:";
const shell = { name: "shell_cmd", args: { command: "echo", args: ["hi"] } };

/** A harness whose every turn parks on an approval for one shell call. */
async function parkedTurns(): Promise<Harness> {
  const provider = new ScriptedProvider(() => ({ toolCalls: [shell] }));
  const harness = await createHarness({
    agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
    world: { defaultAgent: "alice" },
  });
  await harness.say("go");
  await harness.idle();
  return harness;
}

/** The process "dies" inside the command's action: the stop marker's write fails once. */
function killNextStop(harness: Harness): void {
  const mark = harness.store.markTurnStopped.bind(harness.store);
  harness.store.markTurnStopped = async () => {
    harness.store.markTurnStopped = mark;
    throw new Error("killed inside /stop");
  };
}

async function openTurns(harness: Harness) {
  return harness.store.listTurns({ chatKey: chat, states: ["running", "parked"] });
}

function worldTexts(harness: Harness): string[] {
  return harness.channel
    .messages()
    .filter((message) => message.author === "roundtable")
    .map((message) => message.text);
}

describe("a chat command delivered again", () => {
  it("a typed /stop cut by a crash acts when the platform delivers it again", async () => {
    h = await parkedTurns();
    expect(await openTurns(h)).toHaveLength(1);
    killNextStop(h);
    await expect(h.say("/stop", { id: "stop-1" })).rejects.toThrow("killed inside /stop");
    await h.say("/stop", { id: "stop-1" });
    await h.idle();
    expect(await openTurns(h)).toEqual([]);
    expect(worldTexts(h).filter((text) => text.startsWith("Stopped alice"))).toHaveLength(1);
  });

  it("a typed /stop handled once is not run again by a later duplicate (a newer turn keeps going)", async () => {
    h = await parkedTurns();
    await h.say("/stop", { id: "stop-1" });
    await h.idle();
    await h.say("go on");
    await h.idle();
    expect(await openTurns(h)).toHaveLength(1);
    expect(await h.say("/stop", { id: "stop-1" })).toEqual({ status: "duplicate" });
    await h.idle();
    expect(await openTurns(h)).toHaveLength(1);
    expect(worldTexts(h).filter((text) => text.startsWith("Stopped alice"))).toHaveLength(1);
  });

  it("a typed /stop delivered twice at once stops once and is answered once", async () => {
    h = await parkedTurns();
    const results = await Promise.all([h.say("/stop", { id: "stop-1" }), h.say("/stop", { id: "stop-1" })]);
    await h.idle();
    expect(results.filter((result) => result.status === "duplicate")).toHaveLength(1);
    expect(await openTurns(h)).toEqual([]);
    expect(worldTexts(h)).toHaveLength(1);
    expect(worldTexts(h)[0]).toMatch(/^Stopped alice/);
  });

  it("a typed /reset cut by a crash resets when delivered again; a later duplicate does not reset again", async () => {
    h = await parkedTurns();
    const harness = h;
    const reset = harness.store.resetSession.bind(harness.store);
    harness.store.resetSession = async () => {
      harness.store.resetSession = reset;
      throw new Error("killed inside /reset");
    };
    await expect(harness.say("/reset", { id: "reset-1" })).rejects.toThrow("killed inside /reset");
    await harness.say("/reset", { id: "reset-1" });
    await harness.idle();
    expect((await harness.store.getChat(chat))?.sessionEpoch).toBe(1);
    expect(await harness.store.listApprovals({ states: ["pending"] })).toEqual([]);
    expect(await harness.say("/reset", { id: "reset-1" })).toEqual({ status: "duplicate" });
    await harness.idle();
    expect((await harness.store.getChat(chat))?.sessionEpoch).toBe(1);
    expect(worldTexts(harness).filter((text) => text.startsWith("Chat reset by"))).toHaveLength(1);
  });

  it("a structured /stop cut by a crash acts when delivered again; a later duplicate does not", async () => {
    h = await parkedTurns();
    const stop = {
      chat: h.chat(),
      name: "stop",
      args: [],
      sender: { id: "ana", displayName: "ana", isBot: false },
      platformEventId: "press-1",
      raw: {},
    };
    killNextStop(h);
    await expect(h.channel.command(stop)).rejects.toThrow("killed inside /stop");
    expect(await h.channel.command(stop)).toMatchObject({
      status: "done",
      text: expect.stringMatching(/^Stopped alice/),
    });
    expect(await openTurns(h)).toEqual([]);
    await h.say("go on");
    await h.idle();
    expect(await h.channel.command(stop)).toEqual({ status: "done", text: "This was already handled." });
    expect(await openTurns(h)).toHaveLength(1);
  });
});
