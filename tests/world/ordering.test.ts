import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("per-chat ordering", () => {
  it("50 chats fed concurrently: every chat's messages are answered strictly in its order", async () => {
    // The model echoes the number of the message it answers.
    const echo = new ScriptedProvider((request) => {
      const last = ScriptedProvider.lastText(request);
      return { text: `re ${last.split(" ").at(-1)}` };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: echo }],
      concurrency: 8,
      // One person writes 200 messages here: the per-person rate limit is not what is tested.
      world: { limits: { messagesPerMinute: 1000 } },
    });
    const chats = Array.from({ length: 50 }, (_, index) => `chat-${index}`);
    const perChat = 4;
    await Promise.all(
      chats.map(async (channel) => {
        for (let number = 1; number <= perChat; number++) {
          await harness?.say(`@alice message ${number}`, { channel });
        }
      }),
    );
    await harness.idle();
    for (const channel of chats) {
      const answers = harness.channel
        .messages()
        .filter((message) => message.chat.channel === channel)
        .map((message) => message.text);
      expect(answers).toEqual(["re 1", "re 2", "re 3", "re 4"]);
    }
  });
});
