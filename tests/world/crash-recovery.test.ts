import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";
import type { ClaimedJob } from "../../src/world/work-queue.js";

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});
async function make(options: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = await createHarness(options);
  harnesses.push(h);
  return h;
}
function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}
function job(payload: ClaimedJob["payload"]): ClaimedJob {
  return { queue: "x", key: "manual", payload, attempts: 1 };
}
const shell = { name: "shell_cmd", args: { command: "echo", args: ["hi"] } };

/** A harness whose agent asked for one shell call that now waits for approval; the model then says `after`. */
async function parkedOnApproval(after: string, platform?: "telegram") {
  const provider = new ScriptedProvider([{ toolCalls: [shell] }, { text: after }]);
  const h = await make({
    agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
    world: { defaultAgent: "alice" },
    ...(platform === undefined ? {} : { platform }),
  });
  await h.say("go");
  await h.idle();
  const [approval] = await h.store.listApprovals({ states: ["pending"] });
  return { h, provider, approval: must(approval) };
}

/**
 * Each test puts the database in the state a crash between two awaits would leave (or races
 * two steps), then runs the step again: nothing may stay open, nothing may happen twice.
 */
describe("steps run again after a crash between two writes", () => {
  it("a text-only step whose answer was stored is not asked of the model again", async () => {
    const provider = new ScriptedProvider([{ text: "hello" }, { text: "second answer" }]);
    const h = await make({ agents: [{ name: "alice", provider }], world: { defaultAgent: "alice" } });
    await h.say("hi");
    await h.idle();
    const [turn] = await h.store.listTurns({});
    expect(provider.requests.length).toBe(1);
    // State at a crash right after addModelStep: message stored, turn still running.
    await h.store.updateTurn(must(turn).id, { state: "running" });
    await h.roundtable.engine.handle(job({ kind: "turn-step", turnId: must(turn).id, step: 1 }));
    await h.idle();
    const answers = (await h.store.listMessages(must(turn).chatKey)).filter((m) => m.author.kind === "agent");
    expect(answers.map((message) => message.text)).toEqual(["hello"]);
    expect(h.channel.messages().map((message) => message.text)).toEqual(["hello"]);
    expect((await h.store.getTurn(must(turn).id))?.state).toBe("ended");
    expect(provider.requests.length).toBe(1);
  });

  it("a stop while a tool runs: after the restart the call is closed (interrupted) and the turn goes on", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const provider = () =>
      new ScriptedProvider((request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: `after: ${request.messages.at(-1)?.text}` }
          : { toolCalls: [{ name: "shell_cmd", args: { command: "sleep", args: ["30"] } }] },
      );
    const options = (p: ScriptedProvider) => ({
      databaseUrl,
      keepDatabase: true,
      agents: [{ name: "alice", provider: p, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      world: { defaultAgent: "alice" },
    });
    const h1 = await createHarness(options(provider()));
    await h1.say("go");
    await h1.waitFor(async () => (await h1.store.listToolCalls({})).some((c) => c.state === "running"));
    await h1.close();
    const h2 = await make(options(provider()));
    // The cut job runs again after its retry delay and records `interrupted`.
    await h2.waitFor(async () => (await h2.store.listToolCalls({}))[0]?.state === "done");
    await h2.idle();
    const calls = await h2.store.listToolCalls({});
    const results = await h2.store.listToolResults(calls.map((call) => call.id));
    expect(results.map((result) => result.kind)).toEqual(["interrupted"]);
    expect((await h2.store.listTurns({})).map((turn) => turn.endReason)).toEqual(["answered"]);
    expect(h2.channel.messages().at(-1)?.text).toMatch(/^after: interrupted: /);
  });

  it("a route step whose turn was created but not queued starts it", async () => {
    const provider = new ScriptedProvider([{ text: "hello" }]);
    const h = await make({ agents: [{ name: "alice", provider }], world: { defaultAgent: "alice" } });
    const key = "console:main:ana:";
    await h.store.ensureChat(key, "main", "console");
    await h.store.addMessage({ id: "m1", chatKey: key, author: { kind: "human", id: "ana", name: "ana" }, text: "hi" });
    await h.store.createTurn({
      id: "m1>alice",
      chatKey: key,
      agent: "alice",
      triggerMessageId: "m1",
      startedById: "ana",
      deadlineAt: new Date(Date.now() + 60000),
    });
    await h.roundtable.engine.handle(job({ kind: "route", messageId: "m1" }));
    await h.idle();
    expect(provider.requests.length).toBe(1);
  });

  it("a redelivered /reset is not routed to the default agent", async () => {
    const provider = new ScriptedProvider([{ text: "hello" }, { text: "x" }]);
    const h = await make({ agents: [{ name: "alice", provider }], world: { defaultAgent: "alice" } });
    await h.say("/reset", { id: "p1" });
    await h.idle();
    await h.say("/reset", { id: "p1" });
    await h.idle();
    expect(provider.requests.length).toBe(0);
  });

  it("an expiry recorded but not finished is finished by its re-run", async () => {
    const { h, approval } = await parkedOnApproval("done");
    await h.store.decideApproval(approval.id, {
      state: "expired",
      actorId: "roundtable",
      actorName: "roundtable",
      at: new Date(),
    });
    await h.roundtable.engine.handle(job({ kind: "approval-expire", approvalId: approval.id }));
    await h.idle();
    const calls = await h.store.listToolCalls({});
    expect(calls[0]?.state).toBe("done");
  });

  it("a decision recorded but not queued is carried out by a later press", async () => {
    const { h, approval } = await parkedOnApproval("done");
    await h.store.decideApproval(approval.id, {
      state: "approved",
      choice: "once",
      actorId: "ana",
      actorName: "ana",
      at: new Date(),
    });
    const again = await h.click(approval.id, "once");
    expect(again.status).toBe("already-decided");
    await h.idle();
    const calls = await h.store.listToolCalls({});
    expect(calls[0]?.state).toBe("done");
  });

  it("a press whose key was claimed but not decided (crash) is decided when delivered again", async () => {
    const { h, approval } = await parkedOnApproval("done");
    // The process that got the press first claimed its key, then died before the decision.
    await h.store.claimInboundKey(`click:${approval.chatKey}:cq-1`);
    const again = await h.click(approval.id, "once", { eventId: "cq-1" });
    expect(again.status).toBe("decided");
    await h.idle();
    expect((await h.store.getApproval(approval.id))?.state).toBe("approved");
    expect((await h.store.listToolCalls({}))[0]?.state).toBe("done");
  });

  it("a press for this session killed right after its decision was stored keeps the session grant", async () => {
    const provider = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool" ? { text: "ran" } : { toolCalls: [shell] },
    );
    const h = await make({
      agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
    });
    await h.say("go");
    await h.idle();
    const approval = must((await h.store.listApprovals({ states: ["pending"] }))[0]);
    // The process dies the moment the decision's transaction has committed.
    const decide = h.store.decideApproval.bind(h.store);
    h.store.decideApproval = async (id, decision) => {
      await decide(id, decision);
      throw new Error("killed after the decision");
    };
    await expect(h.click(approval.id, "session")).rejects.toThrow("killed after the decision");
    h.store.decideApproval = decide;
    // The platform delivers the press again; the decision's step finishes the call.
    expect((await h.click(approval.id, "session")).status).toBe("already-decided");
    await h.idle();
    expect((await h.store.listToolCalls({}))[0]?.state).toBe("done");
    // The same call in this session runs without asking again.
    await h.say("go again");
    await h.idle();
    expect(await h.store.listApprovals({})).toHaveLength(1);
    expect((await h.store.listToolCalls({})).map((call) => call.state)).toEqual(["done", "done"]);
  });

  it("a decision step whose tool result was stored continues the turn", async () => {
    const { h, provider, approval } = await parkedOnApproval("done");
    await h.store.decideApproval(approval.id, {
      state: "approved",
      choice: "once",
      actorId: "ana",
      actorName: "ana",
      at: new Date(),
    });
    await h.store.addToolResult({ toolCallId: approval.toolCallId, kind: "ok", content: "hi" });
    await h.roundtable.engine.handle(job({ kind: "approval-decided", approvalId: approval.id }));
    await h.idle();
    expect(provider.requests.length).toBe(2);
  });

  it("a step re-run after its approval was created reuses it", async () => {
    const { h, approval } = await parkedOnApproval("done");
    await h.store.setToolCallState(approval.toolCallId, "pending");
    let thrown: unknown;
    try {
      await h.roundtable.engine.handle(job({ kind: "turn-step", turnId: approval.turnId, step: 1 }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeUndefined();
  });

  it("a decision that lost the race with a supersede still updates its card", async () => {
    const { h, approval } = await parkedOnApproval("new answer", "telegram");
    // click is recorded (decideApproval) but its job has not run when the route job supersedes.
    await h.store.decideApproval(approval.id, {
      state: "approved",
      choice: "once",
      actorId: "ana",
      actorName: "ana",
      at: new Date(),
    });
    await h.say("actually do something else");
    await h.idle();
    await h.roundtable.engine.handle(job({ kind: "approval-decided", approvalId: approval.id }));
    await h.idle();
    const updates = h.channel.posted.filter((p) => p.kind === "card-update");
    expect(updates.length).toBe(1);
  });
});

describe("an approval outcome posted anew", () => {
  it("an outcome posted as a new message (its card gone) is not posted again when its delivery runs again", async () => {
    const { h, approval } = await parkedOnApproval("done", "telegram");
    const outcomePosts: string[] = [];
    // Like the adapters when the card cannot be edited: the outcome goes out as a new message.
    h.channel.editCard = async () => "gone";
    const sendPart = h.channel.sendPart.bind(h.channel);
    h.channel.sendPart = async (chat, author, part, options) => {
      if (author.kind !== "system") return sendPart(chat, author, part, options);
      const id = `outcome-${outcomePosts.length + 1}`;
      outcomePosts.push(id);
      return id;
    };
    // The first attempt dies right after the outcome's post was recorded.
    const record = h.store.recordOutbound.bind(h.store);
    let died = false;
    h.store.recordOutbound = async (...records) => {
      await record(...records);
      if (!died && records.some((each) => each.platformMessageIds.includes("outcome-1"))) {
        died = true;
        throw new Error("killed after posting the outcome");
      }
    };
    await h.click(approval.id, "deny");
    await h.idle();
    expect((await h.store.listToolCalls({}))[0]?.state).toBe("done");
    expect(outcomePosts).toEqual(["outcome-1"]);
  });
});

describe("the start-up sweep", () => {
  it("delivers an event and routes a person's message whose next steps were never queued", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const options = (provider: ScriptedProvider) => ({
      databaseUrl,
      keepDatabase: true,
      agents: [{ name: "alice", provider }],
      world: { defaultAgent: "alice" },
    });
    const first = await createHarness(options(new ScriptedProvider([])));
    const chat = first.chat();
    const key = "console:main:ana:";
    await first.store.ensureChat(key, "main", "console");
    // A crash right after storing each of these, before queueing what follows.
    const notice = await first.store.addMessage({
      id: "n1",
      chatKey: key,
      author: { kind: "system", id: "roundtable", name: "roundtable" },
      text: "a notice that was never posted",
    });
    await first.store.appendEvent(key, { type: "system", chat, level: "notice", message: notice });
    const person = await first.store.addMessage({
      id: "p1",
      chatKey: key,
      author: { kind: "human", id: "ana", name: "ana" },
      text: "are you there?",
    });
    await first.store.appendEvent(key, { type: "message", chat, message: person });
    await first.close();

    const alice = new ScriptedProvider([{ text: "yes" }]);
    const second = await make(options(alice));
    await second.waitFor(() => second.channel.messages().length === 2);
    await second.idle();
    expect(second.channel.messages().map((message) => message.text)).toEqual(["a notice that was never posted", "yes"]);
    expect(alice.requests).toHaveLength(1);
  });
});

describe("delivery order under retries", () => {
  it("a card post that failed once is still updated after a decision, never left with live buttons", async () => {
    const provider = new ScriptedProvider([{ toolCalls: [shell] }, { text: "done" }]);
    const h = await make({
      agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
      platform: "telegram",
    });
    const original = h.channel.sendCard.bind(h.channel);
    let failed = false;
    h.channel.sendCard = async (chat, card) => {
      if (!failed) {
        failed = true;
        throw new Error("429 rate limited");
      }
      return original(chat, card);
    };
    await h.say("go");
    await h.waitFor(async () => failed);
    await h.waitFor(async () => (await h.store.listApprovals({ states: ["pending"] })).length === 1);
    const [approval] = await h.store.listApprovals({ states: ["pending"] });
    await h.click(must(approval).id, "deny");
    await h.waitFor(() => h.channel.posted.some((p) => p.kind === "card-update"));
    await h.idle();
    expect(h.channel.posted.map((p) => p.kind).indexOf("card-update")).toBeGreaterThan(
      h.channel.posted.map((p) => p.kind).indexOf("card"),
    );
  });
});
