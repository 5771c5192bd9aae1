import { afterEach, describe, expect, it } from "vitest";
import { chatKey } from "../../src/world/chat-ref.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a conversation between a person and two agents", () => {
  it("routes @alice, alice's @bob, bob's auto-mention back, stops at the turn limit, resets on a human message", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = ScriptedProvider.lastText(request);
      if (last.startsWith("ana:")) return { text: "@bob what do you think?" };
      return { text: "Thanks, noted." };
    });
    const bob = new ScriptedProvider(() => ({ text: "I agree." }));
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 4 },
    });
    await harness.say("@alice plan the release");
    await harness.idle();

    const lines = harness.channel.messages().map((message) => `${message.author}: ${message.text}`);
    expect(lines[0]).toBe("alice: @bob what do you think?");
    // bob answers alice; no address of its own, so it is addressed back to alice.
    expect(lines[1]).toBe("bob: @alice I agree.");
    // alice answers bob (auto-mention), bob answers alice: 4 agent turns in all, then the world stops them.
    expect(lines[2]).toBe("alice: @bob Thanks, noted.");
    expect(lines[3]).toBe("bob: @alice I agree.");
    expect(lines[4]).toMatch(/^roundtable: @ana .*4 turns/);
    expect(lines).toHaveLength(5);

    // bob saw alice's message as user text led by her name; never its own text as user text.
    expect(bob.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "alice: @bob what do you think?" });

    // A human message resets the count: alice answers again.
    await harness.say("@alice one more thing");
    await harness.idle();
    const after = harness.channel.messages().map((message) => `${message.author}: ${message.text}`);
    expect(after[5]).toBe("alice: @bob what do you think?");
  });

  it("routes an agent's answer only when it addresses someone: one that addresses nobody queues no route step", async () => {
    const alice = new ScriptedProvider((request) =>
      ScriptedProvider.lastText(request).includes("ping") ? { text: "@ana see above" } : { text: "Here is the plan." },
    );
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }] });
    await harness.say("@alice plan it");
    await harness.idle();
    await harness.say("@alice ping ana");
    await harness.idle();
    const stored = await harness.store.listMessages(chatKey(harness.chat()));
    const answers = stored.filter((message) => message.author.kind === "agent");
    expect(answers.map((message) => message.text)).toEqual(["Here is the plan.", "@ana see above"]);
    for (const question of stored.filter((message) => message.author.kind === "human")) {
      expect((await harness.queue.jobStatus(`route:${question.id}`))?.state).toBe("done");
    }
    // Addresses nobody: nothing to route, so no step was queued for it.
    expect(await harness.queue.jobStatus(`route:${answers[0]?.id}`)).toBeUndefined();
    // Addresses someone (a person here): routed, and routing starts no turn for a person.
    expect((await harness.queue.jobStatus(`route:${answers[1]?.id}`))?.state).toBe("done");
    expect(alice.requests).toHaveLength(2);
    // The routing ran each turn's first step in its own job: no step job was queued for it.
    for (const answer of answers) {
      expect(answer.turnId).toBeDefined();
      expect(await harness.queue.jobStatus(`turn:${answer.turnId}:1`)).toBeUndefined();
    }
  });

  it("a message with no address goes to the default agent; respond: all makes every agent answer", async () => {
    harness = await createHarness({
      agents: [
        { name: "alice", provider: new ScriptedProvider(() => ({ text: "alice here" })) },
        { name: "bob", provider: new ScriptedProvider(() => ({ text: "bob here" })) },
      ],
      world: { defaultAgent: "bob" },
    });
    await harness.say("hello there");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["bob here"]);
    await harness.close();

    harness = await createHarness({
      agents: [
        { name: "alice", provider: new ScriptedProvider(() => ({ text: "alice here" })) },
        { name: "bob", provider: new ScriptedProvider(() => ({ text: "bob here" })) },
      ],
      world: { respond: "all" },
    });
    await harness.say("hello everyone");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["alice here", "bob here"]);
  });

  it("without a default agent, a message that addresses nobody gets a short answer on how to address agents, once a day per person (#28)", async () => {
    const alice = new ScriptedProvider(() => ({ text: "alice here" }));
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: new ScriptedProvider(() => ({ text: "bob here" })) },
      ],
    });
    await harness.say("hello there", { user: "Ana" });
    await harness.idle();
    await harness.say("anyone?", { user: "Ana" });
    await harness.idle();
    const notices = harness.channel.messages().map((message) => `${message.author}: ${message.text}`);
    expect(notices).toEqual([
      "roundtable: Nobody answers a message that addresses no agent here: start it with @alice or @bob (a reply to an agent's message goes to that agent).",
    ]);
    await harness.say("hi", { user: "Eve" });
    await harness.idle();
    expect(harness.channel.messages()).toHaveLength(2);
    expect(alice.requests).toHaveLength(0);
  });

  it("two agents addressed in one message answer in order of first mention", async () => {
    harness = await createHarness({
      agents: [
        { name: "alice", provider: new ScriptedProvider(() => ({ text: "alice here" })) },
        { name: "bob", provider: new ScriptedProvider(() => ({ text: "bob here" })) },
      ],
    });
    await harness.say("@Bob @alice status?");
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.author)).toEqual(["bob", "alice"]);
  });

  it("an unknown @name is answered with a notice naming the agents that exist", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: new ScriptedProvider(() => ({ text: "hi" })) }],
    });
    await harness.say("@carol are you there?");
    await harness.idle();
    const [notice] = harness.channel.messages();
    expect(notice?.author).toBe("roundtable");
    expect(notice?.text).toContain("@carol");
    expect(notice?.text).toContain("@alice");
  });

  it("addressing a person of the chat, by name or handle, is not an unknown agent", async () => {
    const alice = new ScriptedProvider(() => ({ text: "hi" }));
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }] });
    await harness.say("@alice hello", { user: "Ana", handle: "ana_r" });
    await harness.idle();
    await harness.say("@ana_r can you look?", { user: "Eve" });
    await harness.say("@Ana can you look?", { user: "Eve" });
    await harness.idle();
    expect(harness.channel.messages().map((message) => message.author)).toEqual(["alice"]);
    await harness.say("@dan can you look?", { user: "Eve" });
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toContain("@dan");
  });

  it("the same inbound message delivered twice produces one turn", async () => {
    const alice = new ScriptedProvider(() => ({ text: "once" }));
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }] });
    const first = await harness.say("@alice hi", { id: "m-1" });
    const second = await harness.say("@alice hi", { id: "m-1" });
    await harness.idle();
    const third = await harness.say("@alice hi", { id: "m-1" });
    await harness.idle();
    expect(first.status).toBe("accepted");
    expect(second.status).toBe("duplicate");
    expect(third.status).toBe("duplicate");
    expect(alice.requests).toHaveLength(1);
    expect(harness.channel.messages()).toHaveLength(1);
  });

  it("bots' messages are stored but start no turn", async () => {
    const alice = new ScriptedProvider(() => ({ text: "hi" }));
    harness = await createHarness({ agents: [{ name: "alice", provider: alice }] });
    const result = await harness.say("@alice hello", { bot: true });
    await harness.idle();
    expect(result.status).toBe("ignored");
    expect(alice.requests).toHaveLength(0);
  });

  it("with allowBots, another bot's messages start turns, but a bot-and-agent chain stops at the turn limit", async () => {
    const alice = new ScriptedProvider(() => ({ text: "pong" }));
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice }],
      world: { allowBots: true, turnLimit: 2 },
    });
    for (let round = 0; round < 4; round++) {
      await harness.say("@alice ping", { user: "otherbot", bot: true });
      await harness.idle();
    }
    expect(alice.requests).toHaveLength(2);
    expect(harness.channel.messages().map((message) => message.text)).toEqual([
      "pong",
      "pong",
      expect.stringMatching(/2 turns/),
      expect.stringMatching(/2 turns/),
    ]);
    // A person's message resets the count.
    await harness.say("@alice hello");
    await harness.idle();
    expect(alice.requests).toHaveLength(3);
  });

  it("a provider error becomes a short chat message and ends the turn", async () => {
    const { ProviderError } = await import("../../src/errors/roundtable-error.js");
    harness = await createHarness({
      agents: [
        {
          name: "alice",
          provider: new ScriptedProvider([{ error: new ProviderError("provider.auth", "401 invalid key sk-secret") }]),
        },
      ],
    });
    await harness.say("@alice hi");
    await harness.idle();
    const [notice] = harness.channel.messages();
    expect(notice?.author).toBe("roundtable");
    expect(notice?.text).not.toContain("sk-secret");
    expect(notice?.text).not.toMatch(/at .*\.ts:\d+/);
    const turns = await harness.store.listTurns({});
    expect(turns.map((turn) => turn.endReason)).toEqual(["provider-error"]);
  });

  it("each agent sees the chat's messages and only its own tool calls and results", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "@bob the build is green" };
      return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["green"] } }] };
    });
    const bob = new ScriptedProvider(() => ({ text: "Great." }));
    harness = await createHarness({
      agents: [
        { name: "alice", provider: alice, tools: ["shell_cmd"] },
        { name: "bob", provider: bob, tools: ["shell_cmd"] },
      ],
      tools: { approval: { shell_cmd: "never" } },
      world: { turnLimit: 2 },
    });
    await harness.say("@alice is the build green?");
    await harness.idle();
    const bobView = bob.requests[0]?.messages ?? [];
    expect(bobView.some((message) => message.role === "tool")).toBe(false);
    expect(bobView.some((message) => message.role === "assistant")).toBe(false);
    expect(bobView.map((message) => message.text)).toEqual([
      "ana: @alice is the build green?",
      "alice: Checking.",
      "alice: @bob the build is green",
    ]);
    const aliceView = alice.requests[1]?.messages ?? [];
    expect(aliceView.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });
});
