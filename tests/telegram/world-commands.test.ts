import { afterEach, describe, expect, it } from "vitest";
import { chatCommands } from "../../src/world/commands/chat-commands.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A model that asks to run `echo hello` (approval needed), then answers. */
function asksToEcho() {
  return new ScriptedProvider((request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "done" }
      : { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] },
  );
}

describe("chat commands on Telegram", () => {
  it("registers the seven commands with setMyCommands at start", async () => {
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: new ScriptedProvider([]) }] });
    const calls = t.fake.callsTo("setMyCommands", mainToken);
    expect(calls).toHaveLength(1);
    expect(t.fake.commandMenus.get(mainToken)).toEqual(
      chatCommands.map((command) => ({ command: command.name, description: command.description })),
    );
    expect(t.fake.commandMenus.get(mainToken)?.map((entry) => entry.command)).toEqual([
      "stop",
      "agents",
      "approvals",
      "usage",
      "rules",
      "reset",
      "help",
    ]);
  });

  it("a refused setMyCommands is logged and the bot runs on", async () => {
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: new ScriptedProvider([{ text: "still here" }]) }],
      world: { defaultAgent: "alice" },
      beforeStart: (fake) => fake.failNext("setMyCommands", { error_code: 400, description: "Bad Request: nope" }),
    });
    expect(t.lines.some((line) => line.msg === "could not register the chat commands menu")).toBe(true);
    await t.say(ana, "hello");
    expect(t.botTexts()).toEqual(["alice: still here"]);
  });

  it("takes /cmd@this_bot, ignores /cmd@other_bot, and links /approvals to the card", async () => {
    const alice = asksToEcho();
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice run echo");
    const card = t.botMessages().find((message) => message.reply_markup !== undefined);
    expect(card).toBeDefined();

    await t.say(ana, "/approvals@roundtable_bot");
    const listing = t.botMessages().at(-1);
    expect(listing?.text).toMatch(/^Pending approvals \(1, oldest first\):\n1\. alice wants shell_cmd/);
    expect(listing?.text).toContain("Ana (who asked) may decide");
    const link = listing?.entities.find((entity) => entity.type === "text_link");
    expect(link).toMatchObject({ url: `https://t.me/c/${String(groupId).slice(4)}/${card?.message_id}` });

    const before = t.botMessages().length;
    await t.say(ana, "/approvals@other_bot");
    expect(t.botMessages()).toHaveLength(before);
    expect(alice.requests).toHaveLength(1);
  });
});
