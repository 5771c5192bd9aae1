import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "../world/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A model that asks to run `echo <word>` once, then answers with what the tool said. */
function echoes(word: string) {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `done: ${word}` };
    return { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

function worldTexts(harness: Harness): string[] {
  return harness.channel
    .messages()
    .filter((message) => message.author === "roundtable")
    .map((message) => message.text);
}

describe("chat commands", () => {
  it("/help and /agents answer in the chat and never reach the agents", async () => {
    const alice = new ScriptedProvider([{ text: "hi" }]);
    const bob = new ScriptedProvider([{ text: "hi" }]);
    h = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { defaultAgent: "alice" },
      agentConfig: { alice: { description: "careful release engineer" } },
    });
    expect(await h.say("/help")).toEqual({ status: "ignored", reason: "chat command /help" });
    await h.say("  /AGENTS  ");
    await h.idle();
    const [help, agents] = worldTexts(h);
    for (const command of ["/stop", "/agents", "/approvals", "/reset", "/help"]) expect(help).toContain(command);
    expect(agents).toBe(
      [
        "Agents in this chat (2):",
        "- @alice: careful release engineer (answers messages addressed to no one)",
        "- @bob",
        'Address an agent with @name at the start of a message, e.g. "@alice what changed today?".',
      ].join("\n"),
    );
    expect(alice.requests).toHaveLength(0);
    expect(bob.requests).toHaveLength(0);
    // Commands are not messages of the conversation: a later turn does not see them.
    await h.say("@alice hello");
    await h.idle();
    expect(alice.requests).toHaveLength(1);
    const seen = alice.requests[0]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(seen).not.toContain("/help");
    expect(seen).not.toContain("AGENTS");
  });

  it("a command delivered twice is answered once; unknown /words and /cmd@otherbot are not commands", async () => {
    const alice = new ScriptedProvider(() => ({ text: "ok" }));
    h = await createHarness({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    await h.say("/help", { id: "same" });
    expect(await h.say("/help", { id: "same" })).toEqual({ status: "duplicate" });
    await h.idle();
    expect(worldTexts(h)).toHaveLength(1);
    // An unknown command is an ordinary message (the default agent answers it).
    await h.say("/deploy now");
    await h.idle();
    expect(alice.requests).toHaveLength(1);
    // Without a bot name from the channel, any /cmd@name is someone else's.
    expect(await h.say("/stop@other_bot")).toEqual({ status: "ignored", reason: "a command for @other_bot" });
    await h.idle();
    expect(worldTexts(h)).toHaveLength(1);
    expect(alice.requests).toHaveLength(1);
    expect(h.logs()).toContain("command for another bot ignored");
  });

  it("/approvals lists two pending approvals of two agents, oldest first; after deciding one it lists one", async () => {
    h = await createHarness({
      agents: [
        { name: "alice", provider: echoes("one"), tools: ["shell_cmd"] },
        { name: "bob", provider: echoes("two"), tools: ["shell_cmd"] },
      ],
      platform: "telegram",
      world: { approvers: { telegram: ["requester", "boss"] } },
    });
    await h.say("@alice run it");
    await h.idle();
    await h.say("@bob run it");
    await h.idle();
    const cards = h.channel.cards();
    expect(cards.map((card) => card.card.agent)).toEqual(["alice", "bob"]);

    await h.say("/approvals");
    await h.idle();
    const listing = worldTexts(h).at(-1) ?? "";
    const lines = listing.split("\n");
    expect(lines[0]).toBe("Pending approvals (2, oldest first):");
    expect(lines[1]).toMatch(
      new RegExp(
        `^1\\. alice wants shell_cmd \`\\{"command":"echo","args":\\["one"\\]\\}\` · id ${cards[0]?.card.shortId} · ana \\(who asked\\) or boss may decide · expires \\d\\d:\\d\\d UTC \\(in 30 minutes\\)$`,
      ),
    );
    expect(lines[2]).toMatch(/^2\. bob wants shell_cmd `\{"command":"echo","args":\["two"\]\}` · id /);
    expect(lines).toHaveLength(3);
    // Listing closes nothing.
    expect(await h.store.listApprovals({ chatKey: "telegram::chat-1:", states: ["pending"] })).toHaveLength(2);

    expect((await h.click(cards[0]?.card.approvalId ?? "", "once")).status).toBe("decided");
    await h.idle();
    await h.say("/approvals");
    await h.idle();
    const after = (worldTexts(h).at(-1) ?? "").split("\n");
    expect(after[0]).toBe("Pending approvals (1, oldest first):");
    expect(after[1]).toMatch(/^1\. bob wants shell_cmd/);
    expect(after).toHaveLength(2);

    expect((await h.click(cards[1]?.card.approvalId ?? "", "deny")).status).toBe("decided");
    await h.idle();
    await h.say("/approvals");
    await h.idle();
    expect(worldTexts(h).at(-1)).toBe("No approvals are pending in this chat.");
  });

  it("only members may use commands; a non-member is told so (in a short reply where nothing private exists)", async () => {
    const alice = new ScriptedProvider([]);
    h = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      platform: "telegram",
      world: { members: { telegram: ["ana"] } },
    });
    await h.say("/agents", { user: "eve" });
    await h.say("/agents", { user: "ana" });
    await h.idle();
    const texts = worldTexts(h);
    expect(texts[0]).toBe("eve: Only members of this chat's world may use its commands.");
    expect(texts[1]).toMatch(/^Agents in this chat \(1\):/);
    expect(h.logs()).toContain("command from a non-member refused");
    // The same through a platform structure (a slash command), /reset included: nothing resets.
    const eve = { id: "eve", displayName: "eve", isBot: false };
    for (const name of ["reset", "stop"]) {
      expect(await h.channel.command({ chat: h.chat(), name, args: [], sender: eve, raw: {} })).toEqual({
        status: "refused",
        text: "Only members of this chat's world may use its commands.",
      });
    }
    expect((await h.store.getChat("telegram::chat-1:"))?.sessionEpoch ?? 0).toBe(0);
  });

  it("a command from a platform structure is answered to its sender; an unknown one says so", async () => {
    h = await createHarness({ agents: [{ name: "alice", provider: new ScriptedProvider([]) }] });
    const sender = { id: "ana", displayName: "ana", isBot: false };
    const help = await h.channel.command({ chat: h.chat(), name: "help", args: [], sender, raw: {} });
    expect(help.status).toBe("done");
    expect(help.text).toContain("/approvals");
    const unknown = await h.channel.command({ chat: h.chat(), name: "deploy", args: [], sender, raw: {} });
    expect(unknown).toEqual({ status: "unknown", text: "There is no command /deploy. Try /help." });
    expect(h.logs()).toContain("unknown command refused");
    await h.idle();
    expect(worldTexts(h)).toHaveLength(0);
  });
});
