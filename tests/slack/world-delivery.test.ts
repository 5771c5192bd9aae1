import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { openTestStore } from "../world/harness.js";
import { ana, channel, modes, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** alice passes a person's request to bob and thanks bob for anything else; bob always agrees. */
function aliceAndBob() {
  const alice = new ScriptedProvider((request) => {
    const last = ScriptedProvider.lastText(request);
    if (last.startsWith("Ana:")) return { text: "@bob what do you think?" };
    return { text: "Thanks, noted." };
  });
  const bob = new ScriptedProvider(() => ({ text: "I agree." }));
  return { alice, bob };
}

describe.each(modes)("Slack delivery through the world engine (%s)", (mode) => {
  it("two agents in one thread address each other until the turn limit hands back to the person", async () => {
    const { alice, bob } = aliceAndBob();
    t = await worldOnSlack({
      mode,
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 4 },
    });
    // `@Roundtable alice …`: the app's mention followed by an agent's name addresses that agent.
    const root = await t.say(ana, "<@U0BOT> alice plan the release", { appMention: true });
    const replies = t.replies(root.ts);
    expect(replies.slice(0, 4).map((message) => [message.username, message.text])).toEqual([
      ["alice", "@bob what do you think?"],
      ["bob", "@alice I agree."],
      ["alice", "@bob Thanks, noted."],
      ["bob", "@alice I agree."],
    ]);
    expect(replies[4]?.username).toBeUndefined();
    expect(replies[4]?.text).toMatch(/the agents have taken 4 turns without a human message/);
    expect(replies).toHaveLength(5);
    // The message and the app_mention of the same post started one turn.
    expect(alice.requests).toHaveLength(2);
    expect(bob.requests).toHaveLength(2);
    expect(alice.requests[0]?.messages.at(-1)).toEqual({ role: "user", text: "Ana: @alice plan the release" });
  });

  it("a redelivered event (same event_id, X-Slack-Retry-Num) produces no second answer", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Once." }));
    t = await worldOnSlack({ mode, agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    const { message, eventId, event } = await t.fake.userMessage({ channel, user: ana, text: "hello" });
    await t.settle();
    const again = await t.fake.deliverEvent(event, { eventId, retryNum: 1 });
    expect(again.status).toBe(200);
    await t.settle();
    // Even under a new event id (a restarted process has no memory of ids), the message ts dedupes.
    await t.fake.deliverEvent(event, { retryNum: 2 });
    await t.settle();
    expect(t.replies(message.ts).map((reply) => reply.text)).toEqual(["Once."]);
    expect(alice.requests).toHaveLength(1);
  });

  it("a 429 on chat.postMessage delays the answer and loses nothing", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Made it." }));
    t = await worldOnSlack({ mode, agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    t.fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1 });
    const root = await t.say(ana, "hello");
    expect(t.replies(root.ts).map((reply) => reply.text)).toEqual(["Made it."]);
    expect(t.fake.callsTo("chat.postMessage").map((call) => call.status)).toEqual([429, 200]);
  });

  it("the service restarted with a card pending: a click after the restart completes the turn once", async () => {
    const script = () =>
      new ScriptedProvider((request) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") return { text: `done: ${last.text.replace(/\s+/g, " ").trim()}` };
        return {
          text: "Checking.",
          toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["restarted"] } }],
        };
      });
    const before = script();
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: before, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
      keepDatabase: true,
    });
    const root = await t.say(ana, "run it");
    expect(t.cards(root.ts)).toHaveLength(1);
    const { fake } = t;
    const databaseUrl = t.world.databaseUrl;
    await t.close({ keepFake: true });

    const after = script();
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: after, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
      databaseUrl,
      reuseFake: fake,
    });
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    const stale = structuredClone(card); // what a client that missed the update still shows
    await t.press(ana, card, /Approve once/);
    await t.press(ana, stale, /Deny/); // a late click changes nothing
    expect(t.fake.ephemerals.map((each) => each.text)).toEqual([
      expect.stringMatching(/^Approved once/),
      expect.stringMatching(/^Already decided by Ana/),
    ]);
    const texts = t.replies(root.ts).map((reply) => reply.text);
    expect(texts.filter((text) => text.startsWith("done:"))).toHaveLength(1);
    expect(texts.at(-1)).toMatch(/^done: exit code: 0 .*restarted/);
    expect(after.requests).toHaveLength(1);
    expect(before.requests).toHaveLength(1);
    await fake.close();
  });
});

describe("Slack HTTP events", () => {
  it("a bad signature, an old timestamp and an unsigned request get 401 and a log line; nothing reaches the world", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Should not answer." }));
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
    });
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T0FAKE",
      event_id: "EvForged",
      event: { type: "message", channel, user: ana, text: "forged", ts: "1800000999.000001" },
    });
    const forged = await t.fake.post(body, "application/json", { signingSecret: "not-the-secret" });
    const stale = await t.fake.post(body, "application/json", {
      timestampSeconds: Math.floor(Date.now() / 1000) - 600,
    });
    const unsigned = await t.fake.post(body, "application/json", { unsigned: true });
    expect([forged.status, stale.status, unsigned.status]).toEqual([401, 401, 401]);
    await t.settle();
    expect(alice.requests).toHaveLength(0);
    const refusals = t.lines.filter(
      (line) => typeof line.msg === "string" && line.msg.startsWith("slack request refused"),
    );
    expect(refusals.map((line) => line.reason)).toEqual([
      "signature does not match",
      "timestamp outside the 5 minute window",
      "missing signature headers",
    ]);
    // Slack's URL check is answered; a body that is not JSON gets 400.
    const challenge = await t.fake.post(
      JSON.stringify({ type: "url_verification", challenge: "c-123" }),
      "application/json",
    );
    expect(JSON.parse(challenge.body)).toEqual({ challenge: "c-123" });
    expect((await t.fake.post("not json", "application/json")).status).toBe(400);
  });
});

describe("Slack approval cards across a restart", () => {
  it("a card whose approval expired while the service was down is updated at start", async () => {
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "Nobody approved." }
        : { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["late"] } }] },
    );
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", approvalTimeout: "1s" },
      keepDatabase: true,
    });
    const root = await t.say(ana, "run it");
    const [card] = t.cards(root.ts);
    const { fake } = t;
    const databaseUrl = t.world.databaseUrl;
    await t.close({ keepFake: true });
    const opened = await openTestStore(databaseUrl);
    const [approval] = await opened.store.listApprovals({ chatKey: threadKey(root.ts) });
    await opened.close();
    // Down past the deadline.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, (approval?.expiresAt.getTime() ?? 0) - Date.now() + 200)),
    );

    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", approvalTimeout: "1s" },
      databaseUrl,
      reuseFake: fake,
    });
    await t.world.waitFor(() => (card?.updateCount ?? 0) > 0);
    await t.settle();
    expect(JSON.stringify(card?.blocks)).toContain("Expired");
    expect(JSON.stringify(card?.blocks)).not.toContain('"actions"');
    expect(t.replies(root.ts).at(-1)?.text).toBe("Nobody approved.");
    await fake.close();
  });
});
