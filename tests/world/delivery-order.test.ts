import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const bobSays = () =>
  new ScriptedProvider((request) => ({ text: /say (\w+)$/.exec(ScriptedProvider.lastText(request))?.[1] ?? "?" }));

describe("answers keep the order of the messages they answer, across platform errors", () => {
  it("a refused delivery holds the chat's later answers until it goes through", async () => {
    harness = await createHarness({ agents: [{ name: "bob", provider: bobSays() }], deliveryHoldMs: 20_000 });
    let refusals = 3;
    harness.channel.refusePost = (message) => message.text === "A" && refusals-- > 0;
    await harness.say("@bob say A");
    await harness.say("@bob say B");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["A", "B"]);
    expect(harness.logs()).toContain("delivery refused; holding the chat's later deliveries");
  });

  it("a delivery refused for longer than the hold is given up with a notice and a log line; later answers go on", async () => {
    harness = await createHarness({ agents: [{ name: "bob", provider: bobSays() }], deliveryHoldMs: 600 });
    harness.channel.refusePost = (message) => message.text === "A";
    await harness.say("@bob say A");
    await harness.say("@bob say B");
    await harness.idle();
    expect(harness.channel.messages().map((message) => `${message.author}: ${message.text}`)).toEqual([
      "roundtable: An answer from bob could not be shown here: the platform kept refusing it. The details are in the service log.",
      "bob: B",
    ]);
    expect(harness.logs()).toContain("delivery given up after holding the chat");
  });

  it("a chat that refuses everything holds once per given-up answer: its notice, refused too, is not held again", async () => {
    harness = await createHarness({ agents: [{ name: "bob", provider: bobSays() }], deliveryHoldMs: 600 });
    harness.channel.refusePost = (message) => message.text !== "B";
    await harness.say("@bob say A");
    await harness.say("@bob say B");
    await harness.idle();
    expect(harness.channel.messages().map((message) => `${message.author}: ${message.text}`)).toEqual(["bob: B"]);
    // Given up twice: the answer after the hold, its notice after its one try (not held as well
    // by its queued delivery, which would also show it later, out of its place).
    expect(harness.logs().split("delivery given up after holding the chat")).toHaveLength(3);
  });
});
