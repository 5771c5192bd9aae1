import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Answers the oldest request the model sees as still open: what a model reading the view would do. */
function answerOldestOpen(request: { messages: { role: string; text: string }[] }): string {
  const open: string[] = [];
  for (const message of request.messages) {
    if (message.role === "assistant") open.shift();
    const said = /say (\w+)/.exec(message.text);
    if (message.role === "user" && said?.[1]) open.push(said[1]);
  }
  return open[0] ?? "nothing open";
}

describe("coherent request views", () => {
  it("@bob say A, @bob say B back to back: bob's second request shows A answered; one answer to each, in order", async () => {
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const bob = new ScriptedProvider((request, index) => ({
      text: answerOldestOpen(request),
      ...(index === 0 ? { hold: firstHeld } : {}),
    }));
    harness = await createHarness({ agents: [{ name: "bob", provider: bob }] });
    await harness.say("@bob say A");
    // B arrives (and is stored) while bob is still writing his answer to A.
    await harness.waitFor(() => bob.requests.length === 1);
    await harness.say("@bob say B");
    releaseFirst();
    await harness.idle();

    expect(bob.requests).toHaveLength(2);
    expect(bob.requests[1]?.messages).toEqual([
      { role: "user", text: "ana: @bob say A" },
      expect.objectContaining({ role: "assistant", text: "A" }),
      { role: "user", text: "ana: @bob say B" },
    ]);
    expect(harness.channel.messages().map((message) => `${message.author}: ${message.text}`)).toEqual([
      "bob: A",
      "bob: B",
    ]);
  });

  it("a later question from a person stays out of an earlier turn; another agent's answer to the same message is in", async () => {
    let releaseBob: () => void = () => {};
    const bobHeld = new Promise<void>((resolve) => {
      releaseBob = resolve;
    });
    const alice = new ScriptedProvider(() => ({ text: "alice here" }));
    const bob = new ScriptedProvider((_request, index) => ({
      text: "bob here",
      ...(index === 0 ? { hold: bobHeld } : {}),
    }));
    harness = await createHarness({
      agents: [
        { name: "bob", provider: bob },
        { name: "alice", provider: alice },
      ],
      world: { respond: "all" },
    });
    await harness.say("status?");
    await harness.waitFor(() => bob.requests.length === 1);
    await harness.say("and the docs?");
    releaseBob();
    await harness.idle();
    // alice's turn for "status?" ran after bob's: it sees bob's answer to the same question,
    // and not "and the docs?", which came later.
    expect(alice.requests[0]?.messages).toEqual([
      { role: "user", text: "ana: status?" },
      { role: "user", text: "bob: bob here" },
    ]);
  });
});
